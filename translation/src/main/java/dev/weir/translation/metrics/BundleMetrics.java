package dev.weir.translation.metrics;

import java.io.Closeable;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.MetricsEnvironment;
import org.apache.spark.TaskContext;

/**
 * The metrics of one step in one Spark task. User code of the step runs inside {@link #enter}
 * (Spark chains the iterators of fused steps in one thread, so each step sets its own container
 * around its own calls); when the task ends, successfully or not, the task's values go to both
 * accumulators and Spark keeps what each one counts.
 */
public final class BundleMetrics {
  /**
   * Elements a step handles per {@link #enter}: entering swaps a thread-local (Spark's task
   * threads hold many), which cost a tenth of a stateful ParDo's time when done per element.
   */
  public static final int ELEMENTS_PER_SCOPE = 256;

  private final String stepName;
  private final StepMetricsContainer container;

  private BundleMetrics(String stepName) {
    this.stepName = stepName;
    this.container = new StepMetricsContainer(stepName);
  }

  /** Starts collecting {@code stepName}'s metrics in the current task, if there is one. */
  public static BundleMetrics start(PipelineMetrics metrics, String stepName) {
    BundleMetrics bundleMetrics = new BundleMetrics(stepName);
    TaskContext task = TaskContext.get();
    if (task != null && metrics != null) {
      task.addTaskCompletionListener((TaskContext ctx) -> metrics.report(bundleMetrics.values()));
    }
    return bundleMetrics;
  }

  /**
   * Runs driver-side user code of a step (e.g. splitting a source) with the step's container
   * current, and reports its metrics straight away: the driver has no task to wait for.
   */
  public static <T> T onDriver(PipelineMetrics metrics, String stepName, DriverCode<T> code) throws Exception {
    BundleMetrics bundleMetrics = new BundleMetrics(stepName);
    try (Closeable scope = bundleMetrics.enter()) {
      return code.run();
    } finally {
      if (metrics != null) {
        metrics.report(bundleMetrics.values());
      }
    }
  }

  /** User code that runs on the driver. */
  public interface DriverCode<T> {
    T run() throws Exception;
  }

  /** What the step counted so far, as the accumulators take it. */
  private MetricsContainerStepMap values() {
    MetricsContainerStepMap values = new MetricsContainerStepMap();
    values.update(stepName, container);
    return values;
  }

  /** Makes this step's container current until the returned scope is closed. */
  public Closeable enter() {
    return MetricsEnvironment.scopedMetricsContainer(container);
  }
}
