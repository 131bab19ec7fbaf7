package dev.weir.nexmark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import dev.weir.nexmark.launcher.ResultsHistory;
import dev.weir.nexmark.launcher.RunRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher end to end at a small size, on both runners, into one history. */
class LauncherTest {
  @Test
  void runsQueriesOnBothRunnersRecordsThemAndDrawsTheDashboard(@TempDir Path dir) throws Exception {
    String history = "jdbc:h2:" + dir.resolve("history");
    String dashboard = dir.resolve("dashboard.html").toString();
    for (String runner : List.of("DirectRunner", "WeirRunner")) {
      boolean correct = Launcher.run(new String[] {
        "--runner=" + runner, "--query=2,8", "--numEvents=5000", "--sparkMaster=local[2]",
        "--historyUrl=" + history, "--dashboard=" + dashboard, "--runId=launch-" + runner});
      assertThat(runner + " results equal the models", correct, is(true));
    }
    try (ResultsHistory h = new ResultsHistory(history)) {
      List<RunRecord> runs = h.all();
      assertThat(runs.size(), equalTo(4));
      assertThat(runs.stream().allMatch(RunRecord::correct), is(true));
      assertThat(runs.get(0).results(), equalTo(runs.get(2).results()));
      assertThat(runs.stream().map(RunRecord::runId).distinct().sorted().toList(),
          equalTo(List.of("launch-DirectRunner", "launch-WeirRunner")));
    }
    String html = Files.readString(Path.of(dashboard));
    assertThat(html, containsString(
        "data-panel=\"DirectRunner / BATCH\" data-last-run=\"launch-DirectRunner\" data-last-run-queries=\"2\""));
    assertThat(html, containsString(
        "data-panel=\"WeirRunner / BATCH\" data-last-run=\"launch-WeirRunner\" data-last-run-queries=\"2\""));
  }

  /**
   * A history that does not keep what a launch recorded (here an in-memory H2 database, gone once
   * its last connection closes) fails the launch, though every query ran correctly: the comparisons
   * drawn from it would silently miss those runs.
   */
  @Test
  void aHistoryThatLosesTheLaunchsRunsFailsTheLaunch(@TempDir Path dir) throws Exception {
    boolean ok = Launcher.run(new String[] {
      "--runner=DirectRunner", "--query=2", "--numEvents=1000",
      "--historyUrl=jdbc:h2:mem:lost-" + System.nanoTime(), "--dashboard=" + dir.resolve("dashboard.html"),
      "--runId=lost"});
    assertThat("a launch whose runs the history lost", ok, is(false));

    String kept = "jdbc:h2:" + dir.resolve("kept");
    boolean correct = Launcher.run(new String[] {
      "--runner=DirectRunner", "--query=2", "--numEvents=1000",
      "--historyUrl=" + kept, "--dashboard=" + dir.resolve("dashboard.html"), "--runId=kept"});
    assertThat("a launch whose runs the history kept", correct, is(true));
    assertThat(Launcher.keptEveryRun(kept, "kept", "DirectRunner", "BATCH", 1), is(true));
    assertThat(Launcher.keptEveryRun(kept, "kept", "DirectRunner", "BATCH", 2), is(false));
  }

  /**
   * A rate-limited stream (10,000 events/s, 3 s of it) on WeirRunner: query 1's latency is
   * recorded, from each bid's arrival to its output. No output can wait longer than the whole run,
   * nor appear before its bid arrived; the first second is the warm-up and not counted.
   */
  @Test
  void aRateLimitedStreamingRunRecordsItsLatency(@TempDir Path dir) throws Exception {
    String history = "jdbc:h2:" + dir.resolve("history");
    boolean correct = Launcher.run(new String[] {
      "--runner=WeirRunner", "--mode=STREAMING", "--rateLimited=true", "--latencyWarmUpSec=1", "--query=1",
      "--numEvents=30000", "--sparkMaster=local[2]", "--historyUrl=" + history,
      "--dashboard=" + dir.resolve("dashboard.html")});
    assertThat("results equal the model", correct, is(true));
    try (ResultsHistory h = new ResultsHistory(history)) {
      RunRecord run = h.all().get(0);
      // At 10,000 events/s the 30,000th event arrives 2,999.9 ms into the stream, which the
      // generator's millisecond timestamps make 2,999 ms; the wall clock's own millisecond
      // rounding of the start may take one more off.
      assertThat("the stream takes its 3 s", run.runtimeMs(), greaterThanOrEqualTo(2_998L));
      assertThat(run.latencyP50Ms(), greaterThanOrEqualTo(0L));
      assertThat(run.latencyP99Ms(), greaterThanOrEqualTo(run.latencyP50Ms()));
      assertThat("no latency beyond the run", run.latencyP99Ms(), lessThanOrEqualTo(run.runtimeMs()));
    }
    assertThat(Files.readString(dir.resolve("dashboard.html")), containsString("<th>p99 latency ms over runs</th>"));
  }

  /** A query that was asked for and refused by the runner fails the launch, as a wrong one does. */
  @Test
  void aRefusedQueryFailsTheLaunch(@TempDir Path dir) throws Exception {
    boolean ok = Launcher.run(new String[] {
      "--runner=" + RefusingRunner.class.getName(), "--query=2", "--numEvents=1000",
      "--historyUrl=jdbc:h2:" + dir.resolve("history"), "--dashboard=" + dir.resolve("dashboard.html")});
    assertThat("a launch whose query was refused", ok, is(false));
  }
}
