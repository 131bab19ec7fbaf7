package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.joda.time.Instant;

/**
 * What {@link KafkaCountsPipeline} should write and what it wrote, as window start, then key, then
 * count: expected from the records a {@link PacedProducer} got acknowledged, actual from the
 * output files (the sink's hidden temporary files aside).
 */
final class WindowCounts {
  private WindowCounts() {}

  /** The counts the records make: per 1 s window of their create time, per key. */
  static TreeMap<String, TreeMap<String, Long>> of(List<PacedProducer.Sent> records) {
    TreeMap<String, TreeMap<String, Long>> counts = new TreeMap<>();
    for (PacedProducer.Sent r : records) {
      counts.computeIfAbsent(window(r.timestamp()), w -> new TreeMap<>()).merge(r.key(), 1L, Long::sum);
    }
    return counts;
  }

  /** The window (its start, as the pipeline prints it) of a record created at {@code millis}. */
  static String window(long millis) {
    return new Instant(millis - Math.floorMod(millis, KafkaCountsPipeline.WINDOW_MILLIS)).toString();
  }

  /** The windows of the records, the end records ({@link PacedProducer#END_KEY}) left out. */
  static Set<String> dataWindows(List<PacedProducer.Sent> records) {
    Set<String> windows = new TreeSet<>();
    for (PacedProducer.Sent r : records) {
      if (!r.key().equals(PacedProducer.END_KEY)) {
        windows.add(window(r.timestamp()));
      }
    }
    return windows;
  }

  /**
   * The counts in the output files; a file whose lines name several windows, a window in several
   * files or a key twice in a window fails.
   */
  static TreeMap<String, TreeMap<String, Long>> read(Path dir) throws IOException {
    TreeMap<String, TreeMap<String, Long>> counts = new TreeMap<>();
    TreeMap<String, String> fileOf = new TreeMap<>();
    for (File f : files(dir)) {
      Set<String> windows = new TreeSet<>();
      TreeMap<String, Long> keys = new TreeMap<>();
      for (String line : Files.readAllLines(f.toPath(), StandardCharsets.UTF_8)) {
        String[] w = line.split(" ");
        assertThat(f + ": " + line, w.length == 6 && w[0].equals("window") && w[2].equals("key") && w[4].equals("count"), equalTo(true));
        windows.add(w[1]);
        Long before = keys.put(w[3], Long.parseLong(w[5]));
        assertThat(f + " counts key " + w[3] + " twice", before, equalTo(null));
      }
      assertThat(f + " holds one window", windows.size(), equalTo(1));
      String window = windows.iterator().next();
      String other = fileOf.put(window, f.getName());
      assertThat("window " + window + " is in " + f.getName() + " and in " + other, other, equalTo(null));
      counts.put(window, keys);
    }
    return counts;
  }

  /** Asserts that the output holds exactly the counts the records make; a failure lists the windows that differ. */
  static void assertCounts(Path dir, List<PacedProducer.Sent> records, String... context) throws IOException {
    TreeMap<String, TreeMap<String, Long>> expected = of(records);
    TreeMap<String, TreeMap<String, Long>> actual = read(dir);
    if (!actual.equals(expected)) {
      StringBuilder diff = new StringBuilder();
      Set<String> windows = new TreeSet<>(expected.keySet());
      windows.addAll(actual.keySet());
      for (String w : windows) {
        if (!java.util.Objects.equals(expected.get(w), actual.get(w))) {
          diff.append("\n  window ").append(w).append(": expected ").append(expected.get(w)).append(", was ").append(actual.get(w));
        }
      }
      throw new AssertionError(String.join(" ", context) + " output in " + dir + " differs from the counts of the "
          + records.size() + " records sent, in " + diff);
    }
  }

  /**
   * The names of the output files; FileIO's default naming puts the window in them: {@code
   * output-<window start>-<window end>-<pane>-<shard>-of-<shards>.txt}.
   */
  static Set<String> fileNames(Path dir) {
    Set<String> names = new TreeSet<>();
    for (File f : files(dir)) {
      names.add(f.getName());
    }
    return names;
  }

  /**
   * Waits until the output has a file for each of {@code windows}, failing at the deadline, or at
   * once if {@code failure} returns a reason to stop (say, the pipeline ended).
   */
  static void await(Path dir, Set<String> windows, Duration timeout, Supplier<String> failure) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> missing = missing(dir, windows);
    while (!missing.isEmpty()) {
      String stop = failure.get();
      if (stop != null) {
        throw new AssertionError(stop + "; windows still missing in " + dir + ": " + missing);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("windows missing in " + dir + " after " + timeout + ": " + missing
            + " (files: " + fileNames(dir) + ")");
      }
      TimeUnit.MILLISECONDS.sleep(50);
      missing = missing(dir, windows);
    }
  }

  /** The windows of {@code windows} that no output file names. */
  static Set<String> missing(Path dir, Set<String> windows) {
    Set<String> names = fileNames(dir);
    Set<String> missing = new TreeSet<>();
    for (String w : windows) {
      if (names.stream().noneMatch(n -> n.contains(w))) {
        missing.add(w);
      }
    }
    return missing;
  }

  private static List<File> files(Path dir) {
    File[] all = dir.toFile().listFiles();
    if (all == null) {
      return List.of();
    }
    return java.util.Arrays.stream(all).filter(f -> f.isFile() && !f.getName().startsWith(".")).sorted().toList();
  }
}
