package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.weir.nexmark.Launcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test (its name keeps it out of the default test run; run it with {@code
 * -Dtest=NexmarkClusterMeasurement}): streaming Nexmark SMOKE through the launcher on the
 * two-worker cluster and on {@code local[2]}, both with {@code --checkpointDir} (which a cluster
 * needs), one after the other, in driver JVMs of their own. Prints, and writes to {@code
 * target/nexmark-cluster.txt}, each query's events/s side by side and the ratio local/cluster. It
 * asserts only that every query matched its model; the figures are for reading.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class NexmarkClusterMeasurement {
  private static final Duration LAUNCH_TIMEOUT = Duration.ofMinutes(8);
  private static final Pattern ROW =
      Pattern.compile("^\\s*(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(yes|NO|REFUSED)\\s+(\\S+)(?:\\s+(\\S+)){0,2}\\s*$");
  private static final List<Integer> QUERIES = List.of(0, 1, 2, 3, 5, 8, 11);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path tmp;

  @Test
  void streamingEventsPerSecondOnTheClusterAndOnLocal() throws Exception {
    Map<String, Map<Integer, Double>> rates = new LinkedHashMap<>();
    try (SparkCluster cluster = SparkCluster.start(tmp.resolve("cluster"), 2)) {
      rates.put("cluster", launch("cluster", cluster.master(), cluster.sparkHome()));
    }
    rates.put("local[2]", launch("local", "local[2]", null));
    StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "%-6s %14s %14s %14s%n",
        "query", "cluster ev/s", "local[2] ev/s", "local/cluster"));
    double logSum = 0;
    for (int q : QUERIES) {
      double c = rates.get("cluster").get(q);
      double l = rates.get("local[2]").get(q);
      logSum += Math.log(l / c);
      report.append(String.format(Locale.ROOT, "%-6d %,14.0f %,14.0f %14.2f%n", q, c, l, l / c));
    }
    report.append(String.format(Locale.ROOT, "geo-mean local/cluster %.2f%n", Math.exp(logSum / QUERIES.size())));
    System.out.println(report);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "nexmark-cluster.txt"), report, StandardCharsets.UTF_8);
  }

  private Map<Integer, Double> launch(String name, String master, Path sparkHome) throws Exception {
    List<String> args = new ArrayList<>(List.of("--runner=" + CheckpointDirPerPipelineRunner.class.getName(),
        "--mode=STREAMING", "--checkpointDir=" + tmp.resolve(name + "-checkpoints"), "--sparkMaster=" + master,
        "--suite=SMOKE", "--query=" + QUERIES.stream().map(String::valueOf).collect(Collectors.joining(",")),
        "--runId=measure-" + name, "--historyUrl=jdbc:h2:" + tmp.resolve(name + "-history"),
        "--dashboard=" + tmp.resolve(name + "-dashboard.html")));
    try (DriverJvm driver = DriverJvm.java(tmp, name, sparkHome, "2g", Launcher.class.getName(), args)) {
      int exit = driver.awaitExit(LAUNCH_TIMEOUT);
      assertThat("the launcher's exit code (log " + driver.log() + ")", exit, equalTo(0));
      Map<Integer, Double> rates = new TreeMap<>();
      boolean inTable = false;
      for (String line : driver.output().split("\n")) {
        if (line.startsWith("Nexmark on ")) {
          inTable = true;
          continue;
        }
        Matcher m = ROW.matcher(line);
        if (inTable && m.matches()) {
          assertThat("query " + m.group(1) + " correct (log " + driver.log() + ")", m.group(6), equalTo("yes"));
          rates.put(Integer.parseInt(m.group(1)), Double.parseDouble(m.group(4).replace(",", "")));
        }
      }
      assertThat("queries in the table (log " + driver.log() + ")", rates.keySet(), equalTo(new java.util.TreeSet<>(QUERIES)));
      return rates;
    }
  }
}
