package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/** What the test pipelines wrote, read back for comparison with what their input makes. */
final class Outputs {
  private Outputs() {}

  /** Every line of the files in {@code dir} whose names start with {@code prefix}, sorted. */
  static List<String> lines(Path dir, String prefix) throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList()) {
        if (Files.isRegularFile(f)) {
          lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
        }
      }
    }
    lines.sort(null);
    return lines;
  }

  /**
   * {@link WindowSumsPipeline}'s files (not the sink's hidden temporary ones) by the window start
   * their lines name, each file's lines sorted; a file whose lines name several windows, or a
   * window written to two files, fails.
   */
  static TreeMap<Long, List<String>> windowFiles(Path dir) throws IOException {
    TreeMap<Long, List<String>> windows = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return windows;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
        if (!Files.isRegularFile(f)) {
          continue;
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(f, StandardCharsets.UTF_8));
        lines.sort(null);
        Set<Long> starts = new TreeSet<>();
        for (String line : lines) {
          starts.add(Long.parseLong(line.replaceAll("^window (\\d+) .*", "$1")));
        }
        assertThat(f + " holds the lines of one window", starts.size(), equalTo(1));
        long start = starts.iterator().next();
        assertThat(f + " holds window " + start + ", which another file holds too", windows.containsKey(start), equalTo(false));
        windows.put(start, lines);
      }
    }
    return windows;
  }
}
