package dev.weir.translation.metrics;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.BoundedTrieResult;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.StringSetResult;
import org.apache.beam.sdk.util.HistogramData;
import org.apache.spark.SparkContext;
import scala.Option;

/**
 * The Beam metrics of one pipeline run, collected from the executors through two Spark
 * accumulators: "attempted" counts every task attempt, failed ones included (Spark's
 * {@code countFailedValues}); "committed" counts only attempts that succeeded, each partition of a
 * stage once however often Spark ran it ({@link CommittedMetricsAccumulator}). Executors see this
 * object inside their task closures and report through {@link BundleMetrics}.
 */
public final class PipelineMetrics implements Serializable {
  private final MetricsAccumulator attempted = new MetricsAccumulator();
  private final CommittedMetricsAccumulator committed = new CommittedMetricsAccumulator();

  private PipelineMetrics() {}

  /** Registers a fresh pair of accumulators with {@code sparkContext}. */
  public static PipelineMetrics register(SparkContext sparkContext, String jobName) {
    PipelineMetrics metrics = new PipelineMetrics();
    metrics.attempted.register(sparkContext, Option.apply("beam-metrics-attempted-" + jobName), true);
    metrics.committed.register(sparkContext, Option.apply("beam-metrics-committed-" + jobName), false);
    return metrics;
  }

  /** The metrics so far, while the pipeline runs and after it, attempted and committed. */
  public MetricResults results() {
    // Committed first: Spark merges a task's attempted metrics before its committed ones (in the
    // order this object's fields register them), so every committed metric is then among the
    // attempted ones, as Beam's results require.
    MetricsContainerStepMap committedSoFar = committed.value();
    return results(attempted.value(), committedSoFar);
  }

  /**
   * Beam's results of both maps, where a metric attempted and not committed yet (its task's epoch
   * is still running, or Spark has merged the one accumulator and not yet the other) has nothing
   * committed rather than no committed value: Beam's {@code getCommitted()} throws "This runner
   * does not currently support committed metrics results" for the latter, in the middle of a run.
   */
  static MetricResults results(MetricsContainerStepMap attempted, MetricsContainerStepMap committed) {
    MetricResults beams = MetricsContainerStepMap.asMetricResults(attempted, committed);
    return new MetricResults() {
      @Override
      public MetricQueryResults queryMetrics(MetricsFilter filter) {
        MetricQueryResults r = beams.queryMetrics(filter);
        return MetricQueryResults.create(
            committedOrNone(r.getCounters(), attemptedValue -> 0L),
            committedOrNone(r.getDistributions(), attemptedValue -> DistributionResult.IDENTITY_ELEMENT),
            committedOrNone(r.getGauges(), attemptedValue -> GaugeResult.empty()),
            committedOrNone(r.getStringSets(), attemptedValue -> StringSetResult.empty()),
            committedOrNone(r.getBoundedTries(), attemptedValue -> BoundedTrieResult.empty()),
            committedOrNone(r.getHistograms(), attemptedValue -> new HistogramData(attemptedValue.getBucketType())));
      }
    };
  }

  private static <T> List<MetricResult<T>> committedOrNone(Iterable<MetricResult<T>> results, Function<T, T> none) {
    List<MetricResult<T>> out = new ArrayList<>();
    for (MetricResult<T> result : results) {
      out.add(result.getCommittedOrNull() != null
          ? result
          : MetricResult.create(result.getKey(), none.apply(result.getAttempted()), result.getAttempted()));
    }
    return out;
  }

  /**
   * Says that the stages run so far will not run again (a streaming epoch ended, its data
   * released), so that the committed metrics keep a total rather than one entry per task; an
   * epoch that failed adds nothing to them.
   */
  public void settle(boolean epochCommitted) {
    committed.settle(epochCommitted);
  }

  /** Called on executors when a bundle ends, whether it succeeded or failed. */
  void report(MetricsContainerStepMap bundle) {
    attempted.add(bundle);
    committed.add(bundle);
  }
}
