package dev.weir.nexmark.launcher;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The dashboard's "Weir vs peers" section and its text table (the rest: nexmark's DashboardTest). */
class DashboardPeersTest {
  private static RunRecord run(String runId, String runner, int query, long second, double eventsPerSecond,
      boolean correct) {
    return new RunRecord(runId, Instant.ofEpochSecond(second), "c", runner, "BATCH", query, 1000, 10,
        eventsPerSecond, 5, correct);
  }

  private static RunRecord withHeap(RunRecord r, long peakMb, long liveMb) {
    return new RunRecord(r.runId(), r.time(), r.commit(), r.runner(), r.mode(), r.query(), r.events(), r.runtimeMs(),
        r.eventsPerSecond(), r.results(), r.correct(), peakMb, liveMb);
  }

  /** Weir at 2x and 8x the Spark runner: ratios 2 and 8, geometric mean 4; Flink wrong on query 1. */
  private static final List<RunRecord> RUNS = List.of(
      run("old", "WeirRunner", 0, 1, 1, true),
      run("old", "SparkRunner", 0, 2, 1, true),
      withHeap(run("p", "WeirRunner", 0, 10, 2000, true), 512, 128),
      run("p", "WeirRunner", 1, 11, 8000, true),
      run("p", "SparkRunner", 0, 12, 1000, true),
      run("p", "SparkRunner", 1, 13, 1000, true),
      run("p", "FlinkRunner", 0, 14, 4000, true),
      run("p", "FlinkRunner", 1, 15, 4000, false),
      run("solo", "WeirRunner", 0, 20, 5, true));

  @Test
  void textTableHasEventsPerSecondRatiosAndGeoMeans() {
    assertThat(Dashboard.peerTable(RUNS, "p", "BATCH").orElseThrow(), equalTo(String.join("\n",
        "Weir vs peers, run p (BATCH): events/s per runner; Weir/peer above 1: Weir is faster; '-': no correct run"
            + " (refused, failed or not run); geo-mean over the queries with a ratio (how many)",
        "query     WeirRunner  FlinkRunner  SparkRunner  Weir/FlinkRunner  Weir/SparkRunner",
        "0              2,000        4,000        1,000              0.50              2.00",
        "1              8,000  4,000 WRONG        1,000                 -              8.00",
        "geo-mean                                                0.50 (1)          4.00 (2)",
        // Heap figures: Weir's query 0 recorded them, no other run did.
        "Heap per runner in MB, peak/live: the most in use before a collection / after one ('-': none recorded)",
        "query  WeirRunner  FlinkRunner  SparkRunner",
        "0" + " ".repeat(9) + "512/128" + " ".repeat(10) + "-/-" + " ".repeat(10) + "-/-",
        "1" + " ".repeat(13) + "-/-" + " ".repeat(10) + "-/-" + " ".repeat(10) + "-/-",
        "")));
  }

  @Test
  void noComparisonWithoutWeirAndAPeer() {
    assertThat(Dashboard.peerTable(RUNS, "solo", "BATCH"), equalTo(Optional.empty()));
    assertThat(Dashboard.peerTable(RUNS, "p", "STREAMING"), equalTo(Optional.empty()));
  }

  /** The latest run id with Weir and a peer, not a later one of Weir alone; the panels stay. */
  @Test
  void dashboardComparesTheLatestLaunchWithPeersAboveThePanels() {
    String html = Dashboard.render(RUNS, 20);
    assertThat(html, containsString("<section class=\"peers\" data-peers-run=\"p\" data-peers-mode=\"BATCH\">"));
    assertThat(html, not(containsString("data-peers-run=\"old\"")));
    assertThat(html, containsString("<th class=\"geo-mean\" data-peer=\"SparkRunner\">4.00 (2)</th>"));
    assertThat(html, containsString("<td class=\"bad\">4,000 WRONG</td>"));
    assertThat(html, containsString("<table class=\"heap\"><tr><th>query</th><th>WeirRunner</th>"));
    assertThat(html, containsString("<tr><td>0</td><td>512/128</td><td>-/-</td><td>-/-</td></tr>"));
    assertThat(html.indexOf("class=\"peers\"") < html.indexOf("class=\"panel\""), is(true));
    assertThat(html, containsString("data-panel=\"WeirRunner / BATCH\" data-last-run=\"solo\" data-last-run-queries=\"1\""));
  }

  /**
   * Rounds: Weir ran query 0 three times (3,000, 1,000 and 2,000 events/s: median 2,000) and
   * Spark twice (1,000 and 3,000: median 2,000), so the ratio is 1, where the latest runs alone
   * would give 2,000 / 3,000; Spark's query 1 was wrong in one of its two runs, so it has no
   * ratio. The heap is the highest of the runs, peak and live each.
   */
  private static final List<RunRecord> ROUNDS = List.of(
      withHeap(run("r", "WeirRunner", 0, 1, 3000, true), 512, 100),
      run("r", "SparkRunner", 0, 2, 1000, true),
      withHeap(run("r", "WeirRunner", 0, 3, 1000, true), 300, 128),
      run("r", "SparkRunner", 0, 4, 3000, true),
      run("r", "WeirRunner", 0, 5, 2000, true),
      run("r", "WeirRunner", 1, 6, 4000, true),
      run("r", "SparkRunner", 1, 7, 1000, true),
      run("r", "SparkRunner", 1, 8, 1000, false));

  @Test
  void severalRunsOfAQueryCountWithTheirMedian() {
    List<String> lines = List.of(Dashboard.peerTable(ROUNDS, "r", "BATCH").orElseThrow().split("\n"));
    assertThat(lines.get(0), containsString(
        "; events/s: the median of each runner's runs of the query (up to 3, launches taken in turns)"));
    assertThat(lines.subList(1, 5), equalTo(List.of(
        "query     WeirRunner  SparkRunner  Weir/SparkRunner",
        "0              2,000        2,000              1.00",
        "1              4,000  1,000 WRONG                 -",
        "geo-mean                                   1.00 (1)")));
    assertThat(lines.subList(5, 9), equalTo(List.of(
        "Events/s per runner, lowest-highest of its runs (how many)",
        "query       WeirRunner      SparkRunner",
        "0      1,000-3,000 (3)  1,000-3,000 (2)",
        "1      4,000-4,000 (1)  1,000-1,000 (2)")));
    assertThat(lines.get(11), equalTo("0         512/128          -/-"));
    String html = Dashboard.render(ROUNDS, 20);
    assertThat(html, containsString("<th class=\"geo-mean\" data-peer=\"SparkRunner\">1.00 (1)</th>"));
    assertThat(html, containsString("<table class=\"spread\">"));
    assertThat(html, containsString("<tr><td>0</td><td>1,000-3,000 (3)</td><td>1,000-3,000 (2)</td></tr>"));
  }

  /** One run per runner and query: no median note and no spread table. */
  @Test
  void oneRunEachHasNoSpreadTable() {
    assertThat(Dashboard.peerTable(RUNS, "p", "BATCH").orElseThrow(), not(containsString("lowest-highest")));
    assertThat(Dashboard.render(RUNS, 20), not(containsString("class=\"spread\"")));
  }
}
