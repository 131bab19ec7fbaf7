package dev.weir.nexmark.launcher;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DashboardTest {
  private static RunRecord run(String runner, int query, long second, double eventsPerSecond, boolean correct) {
    return new RunRecord("launch" + second, Instant.ofEpochSecond(second), "c" + second, runner, "BATCH", query, 1000, 10,
        eventsPerSecond, 5, correct);
  }

  @Test
  void historyKeepsRunsAndFindsTheBaseline(@TempDir Path dir) throws Exception {
    try (ResultsHistory history = new ResultsHistory("jdbc:h2:" + dir.resolve("h"))) {
      history.append(run("WeirRunner", 2, 1, 100, true));
      history.append(run("WeirRunner", 2, 2, 120, true));
      history.append(run("DirectRunner", 2, 3, 50, true));
      assertThat(history.all().size(), equalTo(3));
      assertThat(history.baseline("WeirRunner", "BATCH", 2, 1000).get().eventsPerSecond(), equalTo(120.0));
      assertThat(history.baseline("WeirRunner", "BATCH", 3, 1000).isPresent(), equalTo(false));
    }
  }

  @Test
  void onePanelPerRunnerAndModeWithRegressionsMarked() {
    String html = Dashboard.render(List.of(
        run("WeirRunner", 0, 1, 1000, true),
        run("WeirRunner", 0, 2, 500, true),
        run("DirectRunner", 0, 3, 100, false)), 20);
    assertThat(html, containsString("data-panel=\"WeirRunner / BATCH\""));
    assertThat(html, containsString("data-panel=\"DirectRunner / BATCH\""));
    assertThat(html, containsString("class=\"regression\""));
    assertThat(html, containsString("query 0, run of 1970-01-01T00:00:02Z (c2): 500.0 events/s after 1000.0"));
    assertThat(html, containsString("class=\"bad\">NO"));
    assertThat(html, not(containsString("<script")));
  }

  /** Each panel names the launch of its latest run and how many of its queries that launch ran. */
  /** Only a panel with latencies has the latency columns; runs without them are not drawn there. */
  @Test
  void latenciesAreDrawnWhereRunsHaveThem() {
    RunRecord plain = run("WeirRunner", 1, 1, 1000, true);
    RunRecord measured = new RunRecord("launch2", Instant.ofEpochSecond(2), "c2", "WeirRunner", "STREAMING", 1, 1000,
        10, 1000, 5, true, -1, -1, 120, 480);
    String html = Dashboard.render(List.of(plain, measured), 20);
    String streaming = html.substring(html.indexOf("data-panel=\"WeirRunner / STREAMING\""));
    String batch = html.substring(html.indexOf("data-panel=\"WeirRunner / BATCH\""), html.indexOf("data-panel=\"WeirRunner / STREAMING\""));
    assertThat(streaming, containsString("<th>p99 latency ms over runs</th>"));
    assertThat(streaming, containsString("<td>120/480</td>"));
    assertThat(streaming, containsString("max 480.0"));
    assertThat(batch, not(containsString("latency")));
  }

  @Test
  void panelsNameTheirLatestLaunch() {
    String html = Dashboard.render(List.of(
        run("WeirRunner", 0, 1, 1000, true),
        run("WeirRunner", 1, 1, 1000, true),
        run("WeirRunner", 0, 2, 900, true),
        run("DirectRunner", 0, 1, 100, true)), 20);
    assertThat(html, containsString("data-panel=\"WeirRunner / BATCH\" data-last-run=\"launch2\" data-last-run-queries=\"1\""));
    assertThat(html, containsString("data-panel=\"DirectRunner / BATCH\" data-last-run=\"launch1\" data-last-run-queries=\"1\""));
  }

  /** A history from before run ids gets the column; its old runs read with an empty run id. */
  @Test
  void anOldHistoryGetsTheRunIdColumn(@TempDir Path dir) throws Exception {
    String url = "jdbc:h2:" + dir.resolve("old");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url); java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE nexmark_runs (run_time TIMESTAMP NOT NULL, run_commit VARCHAR(64) NOT NULL, "
          + "runner VARCHAR(128) NOT NULL, mode VARCHAR(16) NOT NULL, query INT NOT NULL, events BIGINT NOT NULL, "
          + "runtime_ms BIGINT NOT NULL, events_per_sec DOUBLE PRECISION NOT NULL, results BIGINT NOT NULL, "
          + "correct BOOLEAN NOT NULL)");
      s.execute("INSERT INTO nexmark_runs VALUES (TIMESTAMP '2020-01-01 00:00:00', 'c0', 'WeirRunner', 'BATCH', 0, "
          + "1000, 10, 100.0, 5, TRUE)");
    }
    try (ResultsHistory history = new ResultsHistory(url)) {
      history.append(run("WeirRunner", 0, 1_700_000_000L, 120, true));
      List<RunRecord> runs = history.all();
      assertThat(runs.stream().map(RunRecord::runId).toList(), equalTo(List.of("", "launch1700000000")));
      assertThat(runs.get(0).latencyP99Ms(), equalTo(-1L));
      history.append(new RunRecord("l", Instant.ofEpochSecond(1_800_000_000L), "c", "WeirRunner", "STREAMING", 1, 1000,
          10, 100, 5, true, 64, 32, 130, 870));
      RunRecord back = history.all().get(2);
      assertThat(List.of(back.peakHeapMb(), back.liveHeapMb(), back.latencyP50Ms(), back.latencyP99Ms()),
          equalTo(List.of(64L, 32L, 130L, 870L)));
    }
  }
}
