package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test (its name keeps it out of the default test run; run it with {@code
 * -Dtest=EpochTimesMeasurement}): the same small streaming pipeline ({@link WindowSumsPipeline}
 * without files: a queue-like source giving 8 records per epoch, a stateful DoFn with timers, a
 * counting sink) on the two-worker cluster with {@code --checkpointDir} and on {@code local[2]}
 * with and without it, in driver JVMs of their own, each with Spark's event log. Prints, and
 * writes to {@code target/epoch-times.txt}, the epoch figures side by side ({@link EpochTimes}).
 * It asserts only that each run made the lines its input makes; the times are for reading.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class EpochTimesMeasurement {
  private static final long VALUES = 240;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(4);
  private static final Pattern RESULT = Pattern.compile("STATE DONE EPOCHS (\\d+) MILLIS (\\d+) LINES (\\d+)");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path tmp;

  @Test
  void epochTimesOnTheClusterAndOnLocal() throws Exception {
    Map<String, EpochTimes> runs = new LinkedHashMap<>();
    List<String> summary = new ArrayList<>();
    try (SparkCluster cluster = SparkCluster.start(tmp.resolve("cluster"), 2)) {
      run(runs, summary, "cluster+ckpt", cluster, cluster.master(), true);
    }
    run(runs, summary, "local[2]+ckpt", null, "local[2]", true);
    run(runs, summary, "local[2]", null, "local[2]", false);
    String report = String.join("\n", summary) + "\n\n" + EpochTimes.table(runs);
    System.out.println(report);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "epoch-times.txt"), report, StandardCharsets.UTF_8);
  }

  private void run(Map<String, EpochTimes> runs, List<String> summary, String name, SparkCluster cluster, String master,
      boolean checkpoint) throws Exception {
    String dirName = name.replaceAll("[^a-z0-9]+", "-");
    Path acks = Files.createDirectories(tmp.resolve(dirName + "-acks"));
    List<String> args = new ArrayList<>(List.of("-", acks.toString(), String.valueOf(VALUES),
        "--sparkMaster=" + master, "--epochMaxRecords=4"));
    if (checkpoint) {
      args.add("--checkpointDir=" + tmp.resolve(dirName + "-checkpoints"));
    }
    try (DriverJvm driver = DriverJvm.java(tmp, dirName, cluster == null ? null : cluster.sparkHome(), "1g",
        WindowSumsPipeline.class.getName(), args)) {
      driver.assertSucceeds(RUN_TIMEOUT);
      Matcher m = RESULT.matcher(driver.output());
      assertThat("the run's result line: " + driver.log(), m.find(), equalTo(true));
      long lines = WindowSumsPipeline.expected(VALUES).values().stream().mapToLong(List::size).sum();
      assertThat("lines the run made", Long.parseLong(m.group(3)), equalTo(lines));
      EventLog events = driver.eventLog();
      EpochTimes times = EpochTimes.of(events);
      runs.put(name, times);
      summary.add(String.format(java.util.Locale.ROOT,
          "%-14s %s epochs in %,d ms of pipeline (run() to the end); Spark application %,d ms; median epoch %d ms",
          name, m.group(1), Long.parseLong(m.group(2)), events.appEnd() - events.appStart(),
          times.median(EpochTimes.Epoch::period)));
    }
  }
}
