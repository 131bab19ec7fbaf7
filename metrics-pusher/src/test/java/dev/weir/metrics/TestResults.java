package dev.weir.metrics;

import java.util.List;
import org.apache.beam.sdk.metrics.BoundedTrieResult;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricKey;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.StringSetResult;
import org.joda.time.Instant;

/** Fixed metric results, with names that try to break out of their place in every format. */
final class TestResults {
  private TestResults() {}

  static <T> MetricResult<T> result(String step, String namespace, String name, T committed, T attempted) {
    return MetricResult.create(MetricKey.create(step, MetricName.named(namespace, name)), committed, attempted);
  }

  static MetricQueryResults sample() {
    return MetricQueryResults.create(
        List.of(
            result("Count/ParMultiDo(Count)", "my.ns", "elements", 5L, 7L),
            result("evil step\nbeam.x 1 2", "ns/with/slashes", "a \"quoted\" name", 1L, 1L)),
        List.of(result("Stats", "ns", "sizes", DistributionResult.create(10, 2, 3, 7), DistributionResult.create(10, 2, 3, 7))),
        List.of(result("Stats", "ns", "latest", GaugeResult.create(9, new Instant(0)), GaugeResult.create(9, new Instant(0)))),
        List.of(result("Stats", "ns", "words", StringSetResult.create(java.util.Set.of("b", "a")),
            StringSetResult.create(java.util.Set.of("b", "a")))),
        List.of(result("Stats", "ns", "paths", BoundedTrieResult.create(java.util.Set.of(List.of("x", "y"))),
            BoundedTrieResult.create(java.util.Set.of(List.of("x", "y"))))),
        List.of());
  }
}
