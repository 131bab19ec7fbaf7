package dev.weir.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;

/**
 * The Prometheus text exposition format of a push, without timestamps (the Pushgateway rejects
 * them): every value a gauge (Beam counters may go down) with labels {@code step},
 * {@code namespace}, {@code name} and {@code kind} (attempted or committed), e.g.
 * {@code beam_counter{step="s",namespace="ns",name="n",kind="attempted"} 5}. Label values escape
 * backslash, double quote and newline as the format requires.
 */
final class PushgatewayText {
  private PushgatewayText() {}

  static String of(MetricQueryResults results) {
    Map<String, StringBuilder> families = new LinkedHashMap<>();
    for (MetricResult<Long> r : results.getCounters()) {
      both(families, "beam_counter", r, List.of(""), d -> List.of(d));
    }
    for (MetricResult<DistributionResult> r : results.getDistributions()) {
      both(families, "beam_distribution", r, List.of("_count", "_sum", "_min", "_max"),
          d -> List.of(d.getCount(), d.getSum(), d.getMin(), d.getMax()));
    }
    for (MetricResult<org.apache.beam.sdk.metrics.GaugeResult> r : results.getGauges()) {
      both(families, "beam_gauge", r, List.of(""), g -> List.of(g.getValue()));
    }
    for (MetricResult<org.apache.beam.sdk.metrics.StringSetResult> r : results.getStringSets()) {
      both(families, "beam_string_set", r, List.of("_size"), s -> List.of(s.getStringSet().size()));
    }
    for (MetricResult<org.apache.beam.sdk.metrics.BoundedTrieResult> r : results.getBoundedTries()) {
      both(families, "beam_bounded_trie", r, List.of("_size"), t -> List.of(t.getResult().size()));
    }
    StringBuilder text = new StringBuilder();
    families.forEach((family, samples) -> text.append("# TYPE ").append(family).append(" gauge\n").append(samples));
    return text.toString();
  }

  private interface Values<T> {
    List<? extends Number> of(T value);
  }

  private static <T> void both(
      Map<String, StringBuilder> families, String family, MetricResult<T> r, List<String> suffixes, Values<T> values) {
    sample(families, family, suffixes, r, "attempted", r.getAttempted(), values);
    T committed = MetricsSnapshot.committedOrNull(r);
    if (committed != null) {
      sample(families, family, suffixes, r, "committed", committed, values);
    }
  }

  private static <T> void sample(
      Map<String, StringBuilder> families, String family, List<String> suffixes, MetricResult<T> r,
      String kind, T value, Values<T> values) {
    List<? extends Number> numbers = values.of(value);
    for (int i = 0; i < suffixes.size(); i++) {
      String name = family + suffixes.get(i);
      families.computeIfAbsent(name, k -> new StringBuilder())
          .append(name)
          .append("{step=\"").append(label(r.getKey().stepName()))
          .append("\",namespace=\"").append(label(r.getName().getNamespace()))
          .append("\",name=\"").append(label(r.getName().getName()))
          .append("\",kind=\"").append(kind).append("\"} ")
          .append(numbers.get(i)).append('\n');
    }
  }

  static String label(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
