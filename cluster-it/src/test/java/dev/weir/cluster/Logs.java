package dev.weir.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading the logs of drivers, daemons and executors, for assertions and failure messages. */
final class Logs {
  private Logs() {}

  /** The last {@code lines} lines of {@code file}, or a note that it is missing. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(could not read " + file + ": " + e + ")";
    }
  }

  /** The whole file, or empty if it does not exist (yet). */
  static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** How many lines of {@code file} contain {@code text}; 0 if there is no such file (yet). */
  static long count(Path file, String text) {
    if (!Files.exists(file)) {
      return 0;
    }
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains(text)).count();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // being written: the next poll reads it
    }
  }
}
