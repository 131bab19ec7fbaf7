package dev.weir.nexmark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import dev.weir.nexmark.launcher.ResultsHistory;
import dev.weir.nexmark.launcher.RunRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Nexmark launcher, compiled from the nexmark module's sources, on Beam's own Spark and
 * Flink runners: queries 0 and 1 at a small size, checked against their models, into one
 * history. Guards this module's classpath (one for both runners) and the sources' use of Beam
 * against the peers' Beam version.
 */
class PeersSmokeTest {
  @Test
  void queriesZeroAndOneAreCorrectOnSparkAndFlink(@TempDir Path dir) throws Exception {
    String history = "jdbc:h2:" + dir.resolve("history");
    String dashboard = dir.resolve("dashboard.html").toString();
    List<List<String>> runners = List.of(
        List.of("--runner=SparkRunner", "--sparkMaster=local[2]"),
        List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2"));
    for (List<String> runner : runners) {
      List<String> args = new ArrayList<>(runner);
      args.addAll(List.of("--query=0,1", "--numEvents=1000", "--runId=peers-smoke",
          "--historyUrl=" + history, "--dashboard=" + dashboard));
      assertThat(runner + " results equal the models", Launcher.run(args.toArray(String[]::new)), is(true));
    }
    try (ResultsHistory h = new ResultsHistory(history)) {
      List<RunRecord> runs = h.all();
      assertThat(runs.stream().map(r -> r.runner() + " q" + r.query() + " " + r.correct()).sorted().toList(),
          equalTo(List.of("FlinkRunner q0 true", "FlinkRunner q1 true", "SparkRunner q0 true", "SparkRunner q1 true")));
      // Query 0 passes every event through; query 1 keeps the bids.
      assertThat(runs.stream().filter(r -> r.query() == 0).allMatch(r -> r.results() == 1000), is(true));
    }
    assertThat(Files.readString(Path.of(dashboard)),
        containsString("data-panel=\"FlinkRunner / BATCH\" data-last-run=\"peers-smoke\" data-last-run-queries=\"2\""));
  }
}
