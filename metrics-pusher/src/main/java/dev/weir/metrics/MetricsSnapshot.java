package dev.weir.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;

/**
 * Metric query results copied into sorted lists once per push: a runner's results may be lazy
 * views (Beam's own HTTP sink once serialised such a view as an empty bean), and sinks want a
 * stable order so that their output can be pinned by tests.
 */
final class MetricsSnapshot {
  private MetricsSnapshot() {}

  static MetricQueryResults of(MetricQueryResults results) {
    return MetricQueryResults.create(
        sorted(results.getCounters()),
        sorted(results.getDistributions()),
        sorted(results.getGauges()),
        sorted(results.getStringSets()),
        sorted(results.getBoundedTries()),
        sorted(results.getHistograms()));
  }

  private static <T> List<MetricResult<T>> sorted(Iterable<MetricResult<T>> results) {
    List<MetricResult<T>> list = new ArrayList<>();
    results.forEach(list::add);
    list.sort(
        Comparator.comparing((MetricResult<T> r) -> r.getKey().stepName())
            .thenComparing(r -> r.getName().getNamespace())
            .thenComparing(r -> r.getName().getName()));
    return list;
  }

  /** The committed value, or {@code null} where the runner does not support committed values. */
  static <T> T committedOrNull(MetricResult<T> result) {
    try {
      return result.getCommitted();
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }
}
