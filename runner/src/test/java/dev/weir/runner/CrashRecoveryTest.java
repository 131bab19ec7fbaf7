package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.beam.sdk.PipelineResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming pipeline with state, timers and a file sink ({@link CrashTestPipeline}) is killed
 * with {@code kill -9} at random epochs, its driver JVM and the embedded Spark in it, and started
 * again from its checkpoint dir each time; its output must equal an uninterrupted run's: every
 * file, every line, nothing missing and nothing twice.
 */
class CrashRecoveryTest {
  private static final int KILLS = 6;
  /** Small epochs, so that a run lasts long enough to be killed in several places. */
  private static final String EPOCH = "--epochMaxRecords=4";

  @Test
  void killedAtRandomEpochsAndRestartedTheOutputEqualsAnUninterruptedRun(@TempDir Path tmp) throws Exception {
    Path reference = tmp.resolve("reference");
    PipelineResult.State state =
        CrashTestPipeline.build(reference + "/", Files.createDirectories(tmp.resolve("reference-acks")).toString(), EPOCH, "--runtimeMode=STREAMING")
            .run()
            .waitUntilFinish();
    assertThat(state, equalTo(PipelineResult.State.DONE));
    TreeMap<String, List<String>> expected = outputOf(reference);
    assertThat(expected.size(), equalTo(10));
    assertThat(lines(expected), equalTo(70));

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
      Process driver = start(output, acks, checkpoints, tmp.resolve("driver-" + i + ".log"));
      boolean reached = false;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (driver.isAlive() && System.nanoTime() < deadline) {
        if (committedEpoch(checkpoints) >= target) {
          reached = true;
          break;
        }
        Thread.sleep(10);
      }
      assertTrue(reached, "run " + i + " (seed " + seed + ") never committed epoch " + target + ": see " + tmp);
      // Somewhere inside the next epoch, or between two.
      Thread.sleep(random.nextInt(300));
      kill9(driver);
      kills.add("after epoch " + committedEpoch(checkpoints));
      if (i > 0) {
        assertResumed(tmp.resolve("driver-" + i + ".log"));
      }
    }
    Process last = start(output, acks, checkpoints, tmp.resolve("driver-last.log"));
    assertTrue(last.waitFor(5, TimeUnit.MINUTES), "the last run did not finish: see " + tmp);
    assertThat("last run's exit code (log: " + tmp.resolve("driver-last.log") + ")", last.exitValue(), equalTo(0));
    assertResumed(tmp.resolve("driver-last.log"));
    assertThat(kills.size(), greaterThanOrEqualTo(5));
    assertThat("kills " + kills + ", seed " + seed, outputOf(output), equalTo(expected));
  }

  private static Process start(Path output, Path acks, Path checkpoints, Path log) throws IOException {
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
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void assertResumed(Path log) throws IOException {
    String text = Files.readString(log, StandardCharsets.UTF_8);
    assertTrue(text.contains("Resuming after epoch"), "did not resume from the checkpoint dir: " + log);
  }

  /** {@code kill -9} of the driver JVM: no shutdown hook, no cleanup. */
  private static void kill9(Process driver) throws Exception {
    Process kill = new ProcessBuilder("kill", "-9", Long.toString(driver.pid())).inheritIO().start();
    assertTrue(kill.waitFor(30, TimeUnit.SECONDS));
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

  /** Every output file (not the sink's hidden temporary ones) and its lines, sorted. */
  private static TreeMap<String, List<String>> outputOf(Path dir) throws IOException {
    TreeMap<String, List<String>> files = new TreeMap<>();
    for (File f : dir.toFile().listFiles()) {
      if (f.isFile() && !f.getName().startsWith(".")) {
        List<String> lines = new ArrayList<>(Files.readAllLines(f.toPath(), StandardCharsets.UTF_8));
        lines.sort(null);
        files.put(f.getName(), lines);
      }
    }
    return files;
  }

  private static int lines(TreeMap<String, List<String>> files) {
    return files.values().stream().mapToInt(List::size).sum();
  }
}
