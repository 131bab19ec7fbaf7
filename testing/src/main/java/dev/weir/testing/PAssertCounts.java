package dev.weir.testing;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;

/**
 * Checks that every {@link PAssert} of a pipeline that ran actually asserted something. A PAssert
 * counts a success (or a failure) in its own step each time its assertion runs; one that never
 * ran (its window never fired, its input never arrived) counts nothing and would otherwise pass.
 * Beam's {@code TestPipeline} makes the same check, but only for JUnit 4 rules.
 */
public final class PAssertCounts {
  private PAssertCounts() {}

  /**
   * Fails unless each PAssert step of {@code pipeline} counted a success in {@code metrics} and
   * none counted a failure.
   *
   * @throws AssertionError naming how many assertions were expected and how many ran
   */
  public static void verify(Pipeline pipeline, MetricResults metrics) {
    int expected = PAssert.countAsserts(pipeline);
    long succeeded = 0;
    for (MetricResult<Long> counter : counters(metrics, PAssert.SUCCESS_COUNTER)) {
      if (counter.getAttempted() > 0) {
        succeeded++;
      }
    }
    long failures = 0;
    for (MetricResult<Long> counter : counters(metrics, PAssert.FAILURE_COUNTER)) {
      failures += counter.getAttempted();
    }
    if (failures > 0) {
      throw new AssertionError(failures + " PAssert assertion(s) failed");
    }
    if (succeeded != expected) {
      throw new AssertionError(
          "The pipeline has " + expected + " PAssert assertion(s), but " + succeeded
              + " ran and succeeded: an assertion whose input never reached it (a window that never"
              + " fired, a step that never ran) proves nothing");
    }
  }

  private static Iterable<MetricResult<Long>> counters(MetricResults metrics, String name) {
    return metrics
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named(PAssert.class, name)).build())
        .getCounters();
  }
}
