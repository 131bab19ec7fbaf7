package dev.weir.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;

/**
 * Graphite plaintext lines, {@code path value timestamp-in-seconds}, one per value:
 *
 * <pre>
 * beam.counter.STEP.NAMESPACE.NAME.attempted 5 1767225600
 * beam.distribution.STEP.NAMESPACE.NAME.committed.max 9 1767225600
 * beam.gauge.STEP.NAMESPACE.NAME.attempted 3 1767225600
 * beam.stringset.STEP.NAMESPACE.NAME.attempted.size 2 1767225600
 * beam.boundedtrie.STEP.NAMESPACE.NAME.attempted.size 1 1767225600
 * </pre>
 *
 * Each user-given segment (step, namespace, name) is escaped: every character other than
 * letters, digits, '-' and '_' becomes '_', so dots, slashes, spaces and newlines can neither
 * add levels to the path nor start a new line.
 */
final class GraphiteLines {
  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_\\-]");

  private GraphiteLines() {}

  static String escape(String segment) {
    String escaped = UNSAFE.matcher(segment).replaceAll("_");
    return escaped.isEmpty() ? "_" : escaped;
  }

  static List<String> of(MetricQueryResults results, long timestampSeconds) {
    List<String> lines = new ArrayList<>();
    for (MetricResult<Long> r : results.getCounters()) {
      both(lines, "counter", r, (prefix, v) -> line(lines, prefix, v, timestampSeconds));
    }
    for (MetricResult<DistributionResult> r : results.getDistributions()) {
      both(lines, "distribution", r, (prefix, d) -> {
        line(lines, prefix + ".count", d.getCount(), timestampSeconds);
        line(lines, prefix + ".sum", d.getSum(), timestampSeconds);
        line(lines, prefix + ".min", d.getMin(), timestampSeconds);
        line(lines, prefix + ".max", d.getMax(), timestampSeconds);
        line(lines, prefix + ".mean", d.getMean(), timestampSeconds);
      });
    }
    for (MetricResult<GaugeResult> r : results.getGauges()) {
      both(lines, "gauge", r, (prefix, g) -> line(lines, prefix, g.getValue(), timestampSeconds));
    }
    for (MetricResult<org.apache.beam.sdk.metrics.StringSetResult> r : results.getStringSets()) {
      both(lines, "stringset", r, (prefix, s) -> line(lines, prefix + ".size", s.getStringSet().size(), timestampSeconds));
    }
    for (MetricResult<org.apache.beam.sdk.metrics.BoundedTrieResult> r : results.getBoundedTries()) {
      both(lines, "boundedtrie", r, (prefix, t) -> line(lines, prefix + ".size", t.getResult().size(), timestampSeconds));
    }
    return lines;
  }

  private interface ValueWriter<T> {
    void write(String prefix, T value);
  }

  private static <T> void both(List<String> lines, String kind, MetricResult<T> r, ValueWriter<T> writer) {
    String base = "beam." + kind + "." + escape(r.getKey().stepName()) + "."
        + escape(r.getName().getNamespace()) + "." + escape(r.getName().getName());
    writer.write(base + ".attempted", r.getAttempted());
    T committed = MetricsSnapshot.committedOrNull(r);
    if (committed != null) {
      writer.write(base + ".committed", committed);
    }
  }

  private static void line(List<String> lines, String path, Number value, long timestampSeconds) {
    lines.add(path + " " + value + " " + timestampSeconds);
  }
}
