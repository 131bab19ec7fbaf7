package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkaCountsPipeline} in a driver JVM of its own, with {@code --checkpointDir}, killed
 * ({@code kill -9}: no shutdown hook, embedded Spark and KafkaIO's consumers gone with it) at
 * random points after random committed epochs while records are appended, and started again
 * each time. Each restart must resume from the checkpoint dir; the last run, drained once every
 * window of the data is written, must end {@code DONE}; the output must be the counts the input
 * makes, each window once. After every kill, while no driver runs, the offsets the consumer group
 * committed ({@code commitOffsetsInFinalize}) must not be ahead of the marks of the last committed
 * epoch (read from the drivers' DEBUG log), and by the end every partition must have committed
 * offsets.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class KafkaKillRecoveryTest {
  private static final int KILLS = 5;
  private static final String TOPIC = "events";
  private static final String GROUP = "recovering";
  /** About as long as the kills take (~20 s a run), so that records arrive throughout. */
  private static final int RECORDS = 4_000;
  private static final int PER_SECOND = 45;
  private static final List<String> OPTIONS = List.of("--epochMaxReadTimeMillis=300");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  @Test
  void killedAtRandomEpochsAndRestartedEveryRecordIsCountedOnce() throws Exception {
    Path output = tmp.resolve("counts");
    Path checkpoints = tmp.resolve("checkpoints");
    Path stopFile = tmp.resolve("stop");
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    List<Path> logs = new ArrayList<>();
    List<String> kills = new ArrayList<>();
    TreeMap<Integer, Long> highestCommitted = new TreeMap<>();
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic(TOPIC, 4);
      try (PacedProducer producer = new PacedProducer(broker.bootstrapServers(), TOPIC, List.of(0, 1, 2, 3))) {
        for (int i = 0; i < KILLS; i++) {
          long target = committedEpoch(checkpoints) + 1 + random.nextInt(3);
          Path log = tmp.resolve("driver-" + i + ".log");
          logs.add(log);
          Process driver = startDriver(broker, output, checkpoints, stopFile, log);
          try {
            Poll.until("epoch " + target + " committed (seed " + seed + ", log " + log + ")", Duration.ofMinutes(2),
                () -> committedEpoch(checkpoints) >= target, () -> exited(driver, log));
            if (i == 0) {
              producer.start(0, RECORDS, PER_SECOND);
            }
            Thread.sleep(random.nextInt(2_500)); // a random point in the epochs after (~2.5 s each), not a wait for something
          } finally {
            kill9(driver);
          }
          long committed = committedEpoch(checkpoints);
          kills.add("after epoch " + committed);
          if (i > 0) {
            assertResumed(log);
          }
          checkCommittedOffsets(broker, logs, committed, highestCommitted, "kill " + i + " (seed " + seed + ")");
        }

        Path log = tmp.resolve("driver-last.log");
        logs.add(log);
        Process last = startDriver(broker, output, checkpoints, stopFile, log);
        try {
          producer.awaitSent(Duration.ofMinutes(2));
          producer.endEachPartition(KafkaCountsPipeline.WINDOW_MILLIS, KafkaCountsPipeline.MAX_DELAY_MILLIS);
          List<PacedProducer.Sent> sent = producer.sent();
          assertThat(sent.size(), equalTo(RECORDS + 4));
          // A drain stops the reads: first every record must be read, in an epoch committed.
          Map<Integer, Long> ends = new TreeMap<>();
          sent.forEach(r -> ends.merge(r.partition(), r.offset() + 1, Math::max));
          Poll.until("a committed epoch that read every record, up to offsets " + ends, Duration.ofMinutes(2),
              () -> readThrough(logs, ends), () -> exited(last, log));
          WindowCounts.await(output, WindowCounts.dataWindows(sent), Duration.ofMinutes(1), () -> exited(last, log));
          Files.createFile(stopFile); // the driver drains: the end records' window fires, then DONE
          assertTrue(last.waitFor(2, TimeUnit.MINUTES), "the drained last run did not finish: see " + log);
          assertThat("last run's exit code (log " + log + ")", last.exitValue(), equalTo(0));
        } finally {
          kill9(last);
        }
        assertResumed(log);
        checkCommittedOffsets(broker, logs, committedEpoch(checkpoints), highestCommitted, "after the last run");
        assertThat("partitions with committed offsets (seed " + seed + ")", highestCommitted.keySet(), equalTo(java.util.Set.of(0, 1, 2, 3)));
        WindowCounts.assertCounts(output, producer.sent(), "kills " + kills + ", seed " + seed);
      }
    }
  }

  /**
   * The group's committed offsets, read while no driver runs, against the marks of the last
   * committed epoch: for each partition the mark of the latest epoch up to it that read the
   * partition (a split reports a mark each epoch it reads). An offset with no such mark, or past
   * it, was committed before its epoch was.
   */
  private static void checkCommittedOffsets(
      KafkaBroker broker, List<Path> logs, long committed, Map<Integer, Long> highest, String when) throws Exception {
    DriverLog marks = DriverLog.read(logs);
    assertThat(when + ": last commit the drivers logged", marks.lastCommitLogged(), lessThanOrEqualTo(committed));
    Map<Integer, Long> bound = marks.nextOffsetsAt(TOPIC, committed);
    for (Map.Entry<TopicPartition, Long> e : broker.committedOffsets(GROUP).entrySet()) {
      int partition = e.getKey().partition();
      Long mark = bound.get(partition);
      assertTrue(mark != null && e.getValue() <= mark,
          when + ": group " + GROUP + " committed offset " + e.getValue() + " of " + e.getKey()
              + ", ahead of epoch " + committed + "'s mark " + mark + " (marks by epoch: " + marks.byEpoch(TOPIC, partition) + ")");
      if (e.getValue() > 0) {
        highest.merge(partition, e.getValue(), Math::max);
      }
    }
  }

  /** Whether the last epoch the drivers logged as committed had read each partition up to {@code ends}. */
  private static boolean readThrough(List<Path> logs, Map<Integer, Long> ends) {
    try {
      DriverLog log = DriverLog.read(logs);
      Map<Integer, Long> read = log.nextOffsetsAt(TOPIC, log.lastCommitLogged());
      return ends.entrySet().stream().allMatch(e -> read.getOrDefault(e.getKey(), -1L) >= e.getValue());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Process startDriver(KafkaBroker broker, Path output, Path checkpoints, Path stopFile, Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens") || arg.startsWith("--add-modules") || arg.startsWith("-Dspark.")
          || arg.startsWith("-Djdk.reflect") || arg.startsWith("-Dio.netty") || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")) {
        command.add(arg);
      }
    }
    command.add("-Xmx1g");
    command.add("-Dlog4j2.configurationFile=" + driverLogConfig());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KafkaCountsPipeline.class.getName());
    command.add(broker.bootstrapServers());
    command.add(TOPIC);
    command.add(GROUP);
    command.add(output.toString());
    command.add(stopFile.toString());
    command.add("--checkpointDir=" + checkpoints);
    command.addAll(OPTIONS);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return pb.start();
  }

  private static String driverLogConfig() {
    try {
      return Path.of(KafkaKillRecoveryTest.class.getResource("/log4j2-driver.properties").toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Why a driver being waited on is of no more use: it exited; null while it runs. */
  private static String exited(Process driver, Path log) {
    if (driver.isAlive()) {
      return null;
    }
    String firstError = "";
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      firstError = lines.filter(l -> l.contains("Exception")).findFirst().map(l -> " (" + l.trim() + ")").orElse("");
    } catch (IOException | UncheckedIOException e) {
      // the path is in the message anyway
    }
    return "the driver exited with " + driver.exitValue() + firstError + ": see " + log;
  }

  private static void assertResumed(Path log) throws IOException {
    assertTrue(Files.readString(log, StandardCharsets.UTF_8).contains("Resuming after epoch"),
        "did not resume from the checkpoint dir: " + log);
  }

  /** {@code kill -9} of the driver JVM (SIGKILL), if it still runs. */
  private static void kill9(Process driver) throws InterruptedException {
    if (driver.isAlive()) {
      driver.destroyForcibly();
    }
    assertTrue(driver.waitFor(30, TimeUnit.SECONDS), "the driver outlived kill -9 by 30 s");
  }

  /** The last epoch committed in the checkpoint dir, 0 if none. */
  private static long committedEpoch(Path checkpoints) {
    Path commits = checkpoints.resolve("commits");
    if (!Files.isDirectory(commits)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(commits)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("epoch-\\d+"))
          .mapToLong(n -> Long.parseLong(n.substring("epoch-".length())))
          .max()
          .orElse(0);
    } catch (IOException e) {
      return 0; // a commit renamed while listing: the next poll sees it
    }
  }
}
