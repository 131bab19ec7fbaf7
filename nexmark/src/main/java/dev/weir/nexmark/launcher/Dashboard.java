package dev.weir.nexmark.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A self-contained HTML page (inline SVG, no scripts, no network) drawn from the results
 * history: one panel per runner x mode, in each a row per query with its events/s and result
 * count over the runs. A run whose events/s fell more than the threshold below the run before
 * it is marked as a regression (a red point and a line in the regression list); a run whose
 * results were wrong is marked too. Each panel names the launch of its latest run and how many
 * queries that launch recorded in it ({@code data-last-run}, {@code data-last-run-queries}), so
 * that a check of a fresh launch can tell its panels from those an earlier launch left.
 *
 * <p>A panel whose runs measured latency (rate-limited streaming) draws each query's p99 latency
 * over those runs as well.
 *
 * <p>Above the panels, per mode, "Weir vs peers": the latest run id under which WeirRunner and
 * other runners ran, each query's events/s per runner and the ratio WeirRunner / peer (above 1:
 * Weir is faster), with the geometric mean of the ratios per peer. A ratio needs a correct run
 * of both; a query a peer refused or failed has no run, so no ratio. A runner that ran a query
 * several times under the run id (the peers script's rounds) counts with the median of its
 * runs, and a table beside shows their lowest and highest. {@link #peerTable} prints the same
 * comparison as text.
 */
public final class Dashboard {
  private static final int WIDTH = 360;
  private static final int HEIGHT = 70;
  /** The runner the others are compared with. */
  static final String WEIR = "WeirRunner";

  private Dashboard() {}

  public static String render(List<RunRecord> runs, double thresholdPercent) {
    Map<String, Map<Integer, List<RunRecord>>> panels = new TreeMap<>();
    for (RunRecord r : runs) {
      panels.computeIfAbsent(r.runner() + " / " + r.mode(), k -> new TreeMap<>())
          .computeIfAbsent(r.query(), k -> new ArrayList<>())
          .add(r);
    }
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Nexmark results</title>\n")
        .append("<style>body{font-family:sans-serif;margin:1em}section{border:1px solid #ccc;margin:1em 0;padding:.5em}")
        .append("table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}.bad{color:#c00}")
        .append("svg{background:#fafafa;border:1px solid #eee}</style></head><body>\n")
        .append("<h1>Nexmark results</h1>\n<p>").append(runs.size()).append(" runs. Regression: events/s more than ")
        .append(format(thresholdPercent)).append("% below the previous run of the same query.</p>\n");
    for (String mode : new TreeSet<>(runs.stream().map(RunRecord::mode).toList())) {
      latestComparison(runs, mode).ifPresent(c -> html.append(c.html()));
    }
    List<String> regressions = new ArrayList<>();
    for (Map.Entry<String, Map<Integer, List<RunRecord>>> panel : panels.entrySet()) {
      RunRecord latest = null;
      for (List<RunRecord> series : panel.getValue().values()) {
        for (RunRecord r : series) {
          if (latest == null || r.time().isAfter(latest.time())) {
            latest = r;
          }
        }
      }
      String lastRun = latest.runId();
      long lastRunQueries = panel.getValue().values().stream()
          .filter(series -> series.stream().anyMatch(r -> r.runId().equals(lastRun)))
          .count();
      boolean latency = panel.getValue().values().stream()
          .anyMatch(series -> series.stream().anyMatch(r -> r.latencyP99Ms() >= 0));
      html.append("<section class=\"panel\" data-panel=\"").append(escape(panel.getKey()))
          .append("\" data-last-run=\"").append(escape(lastRun))
          .append("\" data-last-run-queries=\"").append(lastRunQueries).append("\">\n<h2>")
          .append(escape(panel.getKey())).append("</h2>\n<table><tr><th>query</th><th>events/s over runs</th>")
          .append("<th>result count over runs</th><th>last events/s</th><th>last results</th><th>correct</th>")
          .append(latency ? "<th>p99 latency ms over runs</th><th>last latency ms p50/p99</th>" : "")
          .append("</tr>\n");
      for (Map.Entry<Integer, List<RunRecord>> query : panel.getValue().entrySet()) {
        List<RunRecord> series = query.getValue();
        List<Boolean> regressed = new ArrayList<>();
        for (int i = 0; i < series.size(); i++) {
          boolean bad = i > 0 && series.get(i).eventsPerSecond()
              < series.get(i - 1).eventsPerSecond() * (1 - thresholdPercent / 100);
          regressed.add(bad);
          if (bad) {
            regressions.add(panel.getKey() + ", query " + query.getKey() + ", run of " + series.get(i).time()
                + " (" + series.get(i).commit() + "): " + format(series.get(i).eventsPerSecond())
                + " events/s after " + format(series.get(i - 1).eventsPerSecond()));
          }
        }
        RunRecord last = series.get(series.size() - 1);
        html.append("<tr><td>").append(query.getKey()).append("</td><td>")
            .append(chart(series.stream().map(RunRecord::eventsPerSecond).toList(), regressed))
            .append("</td><td>")
            .append(chart(series.stream().map(r -> (double) r.results()).toList(), null))
            .append("</td><td>").append(format(last.eventsPerSecond())).append("</td><td>").append(last.results())
            .append("</td><td").append(last.correct() ? ">yes" : " class=\"bad\">NO").append("</td>");
        if (latency) {
          List<Double> p99 = series.stream().filter(r -> r.latencyP99Ms() >= 0).map(r -> (double) r.latencyP99Ms()).toList();
          html.append("<td class=\"latency\">").append(p99.isEmpty() ? "-" : chart(p99, null)).append("</td><td>")
              .append(latencyText(last)).append("</td>");
        }
        html.append("</tr>\n");
      }
      html.append("</table>\n</section>\n");
    }
    html.append("<h2>Regressions</h2>\n<ul id=\"regressions\">\n");
    for (String r : regressions) {
      html.append("<li class=\"bad\">").append(escape(r)).append("</li>\n");
    }
    if (regressions.isEmpty()) {
      html.append("<li>none</li>\n");
    }
    return html.append("</ul>\n</body></html>\n").toString();
  }

  /** A run's heap figures as the tables show them: peak/live in MB, "-" where unknown. */
  public static String heapText(RunRecord r) {
    return heapText(r.peakHeapMb(), r.liveHeapMb());
  }

  private static String heapText(long peakMb, long liveMb) {
    return (peakMb < 0 ? "-" : String.valueOf(peakMb)) + "/" + (liveMb < 0 ? "-" : String.valueOf(liveMb));
  }

  /**
   * The comparison of the runners that ran under {@code runId} in {@code mode}, as a text table;
   * empty unless WeirRunner and at least one other runner ran there. A runner with several runs
   * of a query there is represented by their median events/s.
   */
  public static Optional<String> peerTable(List<RunRecord> runs, String runId, String mode) {
    return Comparison.of(runs, runId, mode).map(Comparison::text);
  }

  /** Of the run ids under which Weir and a peer ran in {@code mode}, the one run last. */
  private static Optional<Comparison> latestComparison(List<RunRecord> runs, String mode) {
    Map<String, RunRecord> latestByRunId = new TreeMap<>();
    for (RunRecord r : runs) {
      if (r.mode().equals(mode) && !r.runId().isEmpty()) {
        latestByRunId.merge(r.runId(), r, (a, b) -> b.time().isAfter(a.time()) ? b : a);
      }
    }
    return latestByRunId.values().stream()
        .sorted((a, b) -> b.time().compareTo(a.time()))
        .map(r -> Comparison.of(runs, r.runId(), mode))
        .flatMap(Optional::stream)
        .findFirst();
  }

  /**
   * Per query, the runs of each runner under one run id and mode; WeirRunner first. A runner
   * that ran a query several times under the id (the peers script's rounds, launches interleaved
   * runner by runner) is represented by the median of its runs' events/s, which one slow or fast
   * launch on a shared machine does not move; its figure is correct only if every run was.
   */
  private record Comparison(
      String runId, String mode, List<String> runners, Map<Integer, Map<String, List<RunRecord>>> byQuery) {
    static Optional<Comparison> of(List<RunRecord> runs, String runId, String mode) {
      Map<Integer, Map<String, List<RunRecord>>> byQuery = new TreeMap<>();
      TreeSet<String> peers = new TreeSet<>();
      boolean weir = false;
      for (RunRecord r : runs) {
        if (!r.runId().equals(runId) || !r.mode().equals(mode)) {
          continue;
        }
        byQuery.computeIfAbsent(r.query(), q -> new LinkedHashMap<>())
            .computeIfAbsent(r.runner(), k -> new ArrayList<>())
            .add(r);
        if (r.runner().equals(WEIR)) {
          weir = true;
        } else {
          peers.add(r.runner());
        }
      }
      if (!weir || peers.isEmpty()) {
        return Optional.empty();
      }
      List<String> runners = new ArrayList<>();
      runners.add(WEIR);
      runners.addAll(peers);
      return Optional.of(new Comparison(runId, mode, runners, byQuery));
    }

    List<String> peers() {
      return runners.subList(1, runners.size());
    }

    /** The runner's runs of the query, none if it has none. */
    List<RunRecord> runs(int query, String runner) {
      return byQuery.get(query).getOrDefault(runner, List.of());
    }

    /** The most runs any runner has of any query: above 1, the figures are medians. */
    int rounds() {
      return byQuery.values().stream().flatMap(m -> m.values().stream()).mapToInt(List::size).max().orElse(0);
    }

    /** The median events/s of the runner's runs of the query; empty without runs. */
    OptionalDouble median(int query, String runner) {
      double[] sorted = runs(query, runner).stream().mapToDouble(RunRecord::eventsPerSecond).sorted().toArray();
      int n = sorted.length;
      if (n == 0) {
        return OptionalDouble.empty();
      }
      return OptionalDouble.of(n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2);
    }

    /** Whether every run of the runner's runs of the query was correct (and there is one). */
    boolean correct(int query, String runner) {
      List<RunRecord> runs = runs(query, runner);
      return !runs.isEmpty() && runs.stream().allMatch(RunRecord::correct);
    }

    OptionalDouble ratio(int query, String peer) {
      // Correct implies at least one run, so both medians are there.
      return correct(query, WEIR) && correct(query, peer)
          ? OptionalDouble.of(median(query, WEIR).getAsDouble() / median(query, peer).getAsDouble())
          : OptionalDouble.empty();
    }

    /** The geometric mean of the peer's ratios, and how many queries it is over. */
    String geoMean(String peer) {
      double logs = 0;
      int n = 0;
      for (int query : byQuery.keySet()) {
        OptionalDouble ratio = ratio(query, peer);
        if (ratio.isPresent()) {
          logs += Math.log(ratio.getAsDouble());
          n++;
        }
      }
      return n == 0 ? "-" : String.format(Locale.ROOT, "%.2f (%d)", Math.exp(logs / n), n);
    }

    /** Events/s (the median) of the runner's runs of the query; "-" for no run, marked when one was wrong. */
    String eventsPerSecond(int query, String runner) {
      OptionalDouble median = median(query, runner);
      return median.isEmpty()
          ? "-"
          : String.format(Locale.ROOT, "%,.0f", median.getAsDouble()) + (correct(query, runner) ? "" : " WRONG");
    }

    /** The lowest and highest events/s of the runner's runs of the query, and how many; "-" for none. */
    String spread(int query, String runner) {
      List<RunRecord> runs = runs(query, runner);
      if (runs.isEmpty()) {
        return "-";
      }
      double low = runs.stream().mapToDouble(RunRecord::eventsPerSecond).min().getAsDouble();
      double high = runs.stream().mapToDouble(RunRecord::eventsPerSecond).max().getAsDouble();
      return String.format(Locale.ROOT, "%,.0f-%,.0f (%d)", low, high, runs.size());
    }

    String ratioText(int query, String peer) {
      OptionalDouble ratio = ratio(query, peer);
      return ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : "-";
    }

    /** How the events/s were taken, for the titles: empty for one run each. */
    String medianNote() {
      return rounds() > 1
          ? "; events/s: the median of each runner's runs of the query (up to " + rounds() + ", launches taken in turns)"
          : "";
    }

    String text() {
      List<String[]> rows = new ArrayList<>();
      List<String> header = new ArrayList<>(List.of("query"));
      header.addAll(runners);
      peers().forEach(p -> header.add("Weir/" + p));
      rows.add(header.toArray(String[]::new));
      for (int query : byQuery.keySet()) {
        List<String> row = new ArrayList<>(List.of(String.valueOf(query)));
        runners.forEach(r -> row.add(eventsPerSecond(query, r)));
        peers().forEach(p -> row.add(ratioText(query, p)));
        rows.add(row.toArray(String[]::new));
      }
      List<String> last = new ArrayList<>(List.of("geo-mean"));
      runners.forEach(r -> last.add(""));
      peers().forEach(p -> last.add(geoMean(p)));
      rows.add(last.toArray(String[]::new));
      StringBuilder text = new StringBuilder("Weir vs peers, run " + runId + " (" + mode
          + "): events/s per runner; Weir/peer above 1: Weir is faster; '-': no correct run (refused, failed"
          + " or not run); geo-mean over the queries with a ratio (how many)" + medianNote() + "\n");
      append(text, rows);
      if (rounds() > 1) {
        text.append("Events/s per runner, lowest-highest of its runs (how many)\n");
        append(text, perRunner(this::spread));
      }
      text.append("Heap per runner in MB, peak/live: the most in use before a collection / after one ('-': none"
          + " recorded)\n");
      append(text, perRunner(this::heap));
      return text.toString();
    }

    /** A table with a row per query and a column per runner, each cell {@code cell(query, runner)}. */
    private List<String[]> perRunner(java.util.function.BiFunction<Integer, String, String> cell) {
      List<String[]> rows = new ArrayList<>();
      List<String> header = new ArrayList<>(List.of("query"));
      header.addAll(runners);
      rows.add(header.toArray(String[]::new));
      for (int query : byQuery.keySet()) {
        List<String> row = new ArrayList<>(List.of(String.valueOf(query)));
        runners.forEach(r -> row.add(cell.apply(query, r)));
        rows.add(row.toArray(String[]::new));
      }
      return rows;
    }

    /**
     * The runner's heap figures for the query, the highest over its runs (peak and live each);
     * "-" for no run.
     */
    String heap(int query, String runner) {
      List<RunRecord> runs = runs(query, runner);
      if (runs.isEmpty()) {
        return "-";
      }
      long peak = runs.stream().mapToLong(RunRecord::peakHeapMb).max().getAsLong();
      long live = runs.stream().mapToLong(RunRecord::liveHeapMb).max().getAsLong();
      return heapText(peak, live);
    }

    private static void append(StringBuilder text, List<String[]> rows) {
      int[] widths = new int[rows.get(0).length];
      for (String[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          widths[i] = Math.max(widths[i], row[i].length());
        }
      }
      for (String[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          text.append(i == 0 ? String.format(Locale.ROOT, "%-" + widths[i] + "s", row[i])
              : String.format(Locale.ROOT, "  %" + widths[i] + "s", row[i]));
        }
        text.append('\n');
      }
    }

    String html() {
      StringBuilder html = new StringBuilder("<section class=\"peers\" data-peers-run=\"").append(escape(runId))
          .append("\" data-peers-mode=\"").append(escape(mode)).append("\">\n<h2>Weir vs peers (")
          .append(escape(mode)).append(", run ").append(escape(runId)).append(")</h2>\n<p>Events/s per query and")
          .append(" runner; Weir/peer above 1: Weir is faster. A ratio needs a correct run of both; '-': no run")
          .append(" recorded (refused, failed or not asked for). Geometric mean over the queries with a ratio")
          .append(escape(medianNote())).append(".</p>\n")
          .append("<table><tr><th>query</th>");
      runners.forEach(r -> html.append("<th>").append(escape(r)).append("</th>"));
      peers().forEach(p -> html.append("<th>Weir/").append(escape(p)).append("</th>"));
      html.append("</tr>\n");
      for (int query : byQuery.keySet()) {
        html.append("<tr><td>").append(query).append("</td>");
        for (String r : runners) {
          html.append(runs(query, r).isEmpty() || correct(query, r) ? "<td>" : "<td class=\"bad\">")
              .append(eventsPerSecond(query, r)).append("</td>");
        }
        peers().forEach(p -> html.append("<td>").append(ratioText(query, p)).append("</td>"));
        html.append("</tr>\n");
      }
      html.append("<tr><th>geo-mean</th>").append("<td></td>".repeat(runners.size()));
      peers().forEach(p -> html.append("<th class=\"geo-mean\" data-peer=\"").append(escape(p)).append("\">")
          .append(geoMean(p)).append("</th>"));
      html.append("</tr>\n</table>\n");
      if (rounds() > 1) {
        html.append("<p>Events/s per runner, lowest-highest of its runs (how many).</p>\n");
        htmlTable(html, "spread", this::spread);
      }
      html.append("<p>Heap per runner in MB, peak/live: the most in use before a garbage collection")
          .append(" / the most still in use after one, in the launcher's JVM, which every runner runs in.</p>\n");
      htmlTable(html, "heap", this::heap);
      return html.append("</section>\n").toString();
    }

    /** An HTML table of class {@code cls}, a row per query and a column per runner. */
    private void htmlTable(StringBuilder html, String cls, java.util.function.BiFunction<Integer, String, String> cell) {
      html.append("<table class=\"").append(cls).append("\"><tr><th>query</th>");
      runners.forEach(r -> html.append("<th>").append(escape(r)).append("</th>"));
      html.append("</tr>\n");
      for (int query : byQuery.keySet()) {
        html.append("<tr><td>").append(query).append("</td>");
        runners.forEach(r -> html.append("<td>").append(escape(cell.apply(query, r))).append("</td>"));
        html.append("</tr>\n");
      }
      html.append("</table>\n");
    }
  }

  /** A run's latencies as the tables show them: p50/p99 in ms, "-" for a run without them. */
  public static String latencyText(RunRecord r) {
    return r.latencyP99Ms() < 0 ? "-" : r.latencyP50Ms() + "/" + r.latencyP99Ms();
  }

  /** A polyline of {@code values} scaled to the chart; regressed points in red. */
  private static String chart(List<Double> values, List<Boolean> regressed) {
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    double span = max - min;
    StringBuilder points = new StringBuilder();
    StringBuilder dots = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      double x = values.size() == 1 ? WIDTH / 2.0 : 5 + i * (WIDTH - 10.0) / (values.size() - 1);
      // A flat series is drawn across the middle.
      double y = span == 0 ? HEIGHT / 2.0 : HEIGHT - 5 - (values.get(i) - min) / span * (HEIGHT - 10);
      points.append(format(x)).append(',').append(format(y)).append(' ');
      boolean bad = regressed != null && regressed.get(i);
      dots.append("<circle cx=\"").append(format(x)).append("\" cy=\"").append(format(y)).append("\" r=\"")
          .append(bad ? "4\" fill=\"#c00\" class=\"regression\"" : "2\" fill=\"#36c\"").append("/>");
    }
    String range = "<text x=\"4\" y=\"11\" font-size=\"10\" fill=\"#666\">max " + format(max) + "</text>"
        + "<text x=\"4\" y=\"" + (HEIGHT - 3) + "\" font-size=\"10\" fill=\"#666\">min " + format(min) + "</text>";
    return "<svg width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\" role=\"img\">" + range
        + "<polyline fill=\"none\" stroke=\"#36c\" points=\"" + points.toString().trim() + "\"/>" + dots + "</svg>";
  }

  private static String format(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
