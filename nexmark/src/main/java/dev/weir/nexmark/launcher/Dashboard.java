package dev.weir.nexmark.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A self-contained HTML page (inline SVG, no scripts, no network) drawn from the results
 * history: one panel per runner x mode, in each a row per query with its events/s and result
 * count over the runs. A run whose events/s fell more than the threshold below the run before
 * it is marked as a regression (a red point and a line in the regression list); a run whose
 * results were wrong is marked too. Each panel names the launch of its latest run and how many
 * queries that launch recorded in it ({@code data-last-run}, {@code data-last-run-queries}), so
 * that a check of a fresh launch can tell its panels from those an earlier launch left.
 */
public final class Dashboard {
  private static final int WIDTH = 360;
  private static final int HEIGHT = 70;

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
      html.append("<section class=\"panel\" data-panel=\"").append(escape(panel.getKey()))
          .append("\" data-last-run=\"").append(escape(lastRun))
          .append("\" data-last-run-queries=\"").append(lastRunQueries).append("\">\n<h2>")
          .append(escape(panel.getKey())).append("</h2>\n<table><tr><th>query</th><th>events/s over runs</th>")
          .append("<th>result count over runs</th><th>last events/s</th><th>last results</th><th>correct</th></tr>\n");
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
            .append("</td><td").append(last.correct() ? ">yes" : " class=\"bad\">NO").append("</td></tr>\n");
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
