package dev.weir.translation.metrics;

import java.io.Serializable;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.MetricResults;
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
    return MetricsContainerStepMap.asMetricResults(attempted.value(), committed.value());
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
