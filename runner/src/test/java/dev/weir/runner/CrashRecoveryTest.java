package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming pipeline with state, timers and a file sink ({@link CrashTestPipeline}) is killed
 * with {@code kill -9} at random epochs, its driver JVM and the embedded Spark in it, and started
 * again from its checkpoint dir each time. Its output must be what the input makes (computed here
 * from the values the source holds): every file, every line, nothing missing and nothing twice;
 * the queue-like source must see every committed mark finalized, and none before its commit; and
 * one kill lands inside an epoch that had begun reading, so that epoch is replayed.
 */
class CrashRecoveryTest {
  private static final int KILLS = 6;
  /** Small epochs, so that a run lasts long enough to be killed in several places. */
  private static final String EPOCH = "--epochMaxRecords=4";

  /** With each state backend: the keyed state must come back from the checkpoint dir as committed. */
  @ParameterizedTest
  @ValueSource(strings = {"memory", "rocksdb"})
  void killedAtRandomEpochsAndRestartedTheOutputIsWhatTheInputMakes(String backend, @TempDir Path tmp) throws Exception {
    Path output = tmp.resolve("recovered");
    Path checkpoints = tmp.resolve("checkpoints");
    Path acks = Files.createDirectories(tmp.resolve("acks"));
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    List<String> kills = new ArrayList<>();
    for (int i = 0; i < KILLS; i++) {
      long committed = committedEpoch(checkpoints);
      long target = committed + 1 + random.nextInt(5);
      Process driver = start(backend, output, acks, checkpoints, tmp.resolve("driver-" + i + ".log"));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      // The first two kills wait until the epoch after the target has recorded what its sources
      // read: the kill then lands inside an epoch that has begun, which the restart replays
      // (unless that epoch commits in the few ms before the kill). The others land anywhere in
      // the 300 ms after a commit: inside an epoch or between two.
      boolean insideAnEpoch = i < 2;
      boolean reached = false;
      while (driver.isAlive() && System.nanoTime() < deadline) {
        long now = committedEpoch(checkpoints);
        if (now >= target && (!insideAnEpoch || hasReadPlan(checkpoints, now + 1))) {
          reached = true;
          break;
        }
        Thread.sleep(5);
      }
      assertTrue(reached, "run " + i + " (seed " + seed + ") never committed epoch " + target + ": see " + tmp);
      if (!insideAnEpoch) {
        Thread.sleep(random.nextInt(300));
      }
      kill9(driver);
      kills.add("after epoch " + committedEpoch(checkpoints));
      if (i > 0) {
        assertResumed(tmp.resolve("driver-" + i + ".log"));
      }
    }
    Process last = start(backend, output, acks, checkpoints, tmp.resolve("driver-last.log"));
    assertTrue(last.waitFor(5, TimeUnit.MINUTES), "the last run did not finish: see " + tmp);
    assertThat("last run's exit code (log: " + tmp.resolve("driver-last.log") + ")", last.exitValue(), equalTo(0));
    assertResumed(tmp.resolve("driver-last.log"));
    boolean replayed = false;
    for (int i = 1; i <= 2; i++) {
      replayed |= read(tmp.resolve("driver-" + i + ".log")).contains("runs again with the clock and reads it had");
    }
    assertTrue(replayed, "two kills landed inside an epoch that had begun reading, but no restart replayed it: see " + tmp);

    assertThat("kills " + kills + ", seed " + seed, outputOf(output), equalTo(expectedOutput()));
    Path violations = QueueSource.violations(acks.toString());
    assertFalse(Files.exists(violations), () -> "marks finalized too early or never: " + read(violations));
    // The last epoch's marks were finalized too: every split acknowledged all its values.
    try (Stream<Path> files = Files.list(acks)) {
      List<Path> splits = files.filter(f -> f.getFileName().toString().matches("split-\\d+")).toList();
      assertThat(splits.size(), greaterThan(0));
      for (Path split : splits) {
        assertThat(split + " acknowledges", Long.parseLong(read(split).trim()), greaterThanOrEqualTo(CrashTestPipeline.VALUES));
      }
    }
  }

  /**
   * What the pipeline makes of its input, from its definition: values 0..VALUES-1, value v at v
   * seconds with key v mod KEYS, windows of 60 s, one line per key and window with the count and
   * the sum of its values, one file per window.
   */
  private static TreeMap<String, List<String>> expectedOutput() {
    TreeMap<Long, TreeMap<Integer, long[]>> windows = new TreeMap<>();
    for (long v = 0; v < CrashTestPipeline.VALUES; v++) {
      long[] countAndSum =
          windows.computeIfAbsent(v / 60 * 60, w -> new TreeMap<>()).computeIfAbsent((int) (v % CrashTestPipeline.KEYS), k -> new long[2]);
      countAndSum[0]++;
      countAndSum[1] += v;
    }
    TreeMap<String, List<String>> byWindow = new TreeMap<>();
    windows.forEach((start, keys) -> {
      IntervalWindow window = new IntervalWindow(new Instant(start * 1000), Duration.standardSeconds(60));
      List<String> lines = new ArrayList<>();
      keys.forEach((key, c) -> lines.add("key " + key + " window " + window + " values " + c[0] + " sum " + c[1]));
      lines.sort(null);
      byWindow.put(window.toString(), lines);
    });
    return byWindow;
  }

  private static boolean hasReadPlan(Path checkpoints, long epoch) throws IOException {
    Path plan = checkpoints.resolve("plans/epoch-" + epoch);
    if (!Files.isDirectory(plan)) {
      return false;
    }
    try (Stream<Path> files = Files.list(plan)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("read-"));
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Process start(String backend, Path output, Path acks, Path checkpoints, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens") || arg.startsWith("-Dspark.")) {
        command.add(arg);
      }
    }
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(CrashTestPipeline.class.getName());
    command.add(output + "/");
    command.add(acks.toString());
    command.add("--runtimeMode=STREAMING");
    command.add(EPOCH);
    command.add("--checkpointDir=" + checkpoints);
    command.add("--stateBackend=" + backend);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void assertResumed(Path log) throws IOException {
    String text = Files.readString(log, StandardCharsets.UTF_8);
    assertTrue(text.contains("Resuming after epoch"), "did not resume from the checkpoint dir: " + log);
  }

  /** {@code kill -9} of the driver JVM (SIGKILL): no shutdown hook, no cleanup. */
  private static void kill9(Process driver) throws Exception {
    driver.destroyForcibly();
    assertTrue(driver.waitFor(30, TimeUnit.SECONDS));
  }

  /** The last epoch committed in the checkpoint dir, 0 if none. */
  private static long committedEpoch(Path checkpoints) throws IOException {
    Path commits = checkpoints.resolve("commits");
    if (!Files.isDirectory(commits)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(commits)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("epoch-"))
          .mapToLong(n -> Long.parseLong(n.substring("epoch-".length())))
          .max()
          .orElse(0);
    }
  }

  /**
   * Every output file (not the sink's hidden temporary ones) and its lines, sorted, keyed by the
   * one window its lines name; a file whose lines name several windows, or a window in several
   * files, fails.
   */
  private static TreeMap<String, List<String>> outputOf(Path dir) throws IOException {
    TreeMap<String, List<String>> files = new TreeMap<>();
    for (File f : dir.toFile().listFiles()) {
      if (f.isFile() && !f.getName().startsWith(".")) {
        List<String> lines = new ArrayList<>(Files.readAllLines(f.toPath(), StandardCharsets.UTF_8));
        lines.sort(null);
        Set<String> windows = new TreeSet<>();
        for (String line : lines) {
          windows.add(line.replaceAll(".* window (\\S+) values .*", "$1"));
        }
        assertThat(f + " holds one window", windows.size(), equalTo(1));
        String window = windows.iterator().next();
        assertThat(f + " holds " + window + ", also held by another file", files.containsKey(window), equalTo(false));
        files.put(window, lines);
      }
    }
    return files;
  }

}
