package dev.weir.translation.metrics;

import java.io.Serializable;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.spark.SparkContext;
import scala.Option;

/**
 * The Beam metrics of one pipeline run, collected from the executors through two Spark
 * accumulators: "attempted" counts every task attempt, failed ones included (Spark's
 * {@code countFailedValues}); "committed" counts only attempts that succeeded. Executors see this
 * object inside their task closures and report through {@link BundleMetrics}.
 */
public final class PipelineMetrics implements Serializable {
  private final MetricsAccumulator attempted = new MetricsAccumulator();
  private final MetricsAccumulator committed = new MetricsAccumulator();

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

  /** Called on executors when a bundle ends, whether it succeeded or failed. */
  void report(MetricsContainerStepMap bundle) {
    attempted.add(bundle);
    committed.add(bundle);
  }
}
