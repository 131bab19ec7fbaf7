package dev.weir.translation.metrics;

import java.util.HashMap;
import java.util.Map;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.spark.TaskContext;
import org.apache.spark.util.AccumulatorV2;

/**
 * Beam's committed metrics: what successful task attempts reported, each partition of each stage
 * counted once. Spark applies a successful shuffle map task's accumulator updates every time the
 * task succeeds, and it runs one again when its output was lost with an executor (or twice when
 * speculation ran two attempts), while the records it processed count once. So each task's
 * metrics are kept by stage and partition and a later success replaces an earlier one. (A
 * persisted partition lost with its executor and computed again inside a later stage's task is
 * not caught by this: it counts again.) {@link
 * #settle} folds them into one total once their stages cannot run again (a streaming epoch's end),
 * so that a long run keeps no more than one epoch's entries.
 */
final class CommittedMetricsAccumulator
    extends AccumulatorV2<MetricsContainerStepMap, MetricsContainerStepMap> {
  /** What stages that cannot run again reported, and what the driver reported itself. */
  private MetricsContainerStepMap settled = new MetricsContainerStepMap();
  /** Per "stage/partition": the last successful attempt's metrics. */
  private Map<String, MetricsContainerStepMap> byTask = new HashMap<>();

  @Override
  public synchronized boolean isZero() {
    // Null while a task deserializes it (see MetricsAccumulator).
    return settled == null
        || (byTask.isEmpty() && settled.equals(new MetricsContainerStepMap()));
  }

  @Override
  public synchronized CommittedMetricsAccumulator copy() {
    CommittedMetricsAccumulator copy = new CommittedMetricsAccumulator();
    copy.settled.updateAll(settled);
    byTask.forEach((k, v) -> {
      MetricsContainerStepMap m = new MetricsContainerStepMap();
      m.updateAll(v);
      copy.byTask.put(k, m);
    });
    return copy;
  }

  /** What Spark ships with each task: empty, without copying what the driver holds. */
  @Override
  public CommittedMetricsAccumulator copyAndReset() {
    return new CommittedMetricsAccumulator();
  }

  @Override
  public synchronized void reset() {
    settled = new MetricsContainerStepMap();
    byTask = new HashMap<>();
  }

  /** In a task: adds to that task's metrics; on the driver: to the settled total. */
  @Override
  public synchronized void add(MetricsContainerStepMap update) {
    TaskContext task = TaskContext.get();
    if (task == null) {
      settled.updateAll(update);
      return;
    }
    byTask.computeIfAbsent(task.stageId() + "/" + task.partitionId(), k -> new MetricsContainerStepMap())
        .updateAll(update);
  }

  /** On the driver, a successful task's updates: they replace what its partition reported before. */
  @Override
  public void merge(AccumulatorV2<MetricsContainerStepMap, MetricsContainerStepMap> other) {
    CommittedMetricsAccumulator task = (CommittedMetricsAccumulator) other;
    Map<String, MetricsContainerStepMap> reported;
    MetricsContainerStepMap driverSide;
    synchronized (task) {
      reported = task.byTask;
      driverSide = task.settled;
    }
    synchronized (this) {
      byTask.putAll(reported);
      settled.updateAll(driverSide);
    }
  }

  /**
   * The stages that ran so far will not run again: their tasks' metrics become one total if
   * {@code committed} (a streaming epoch that was committed), or are dropped (one that failed:
   * committed metrics count committed epochs only).
   */
  synchronized void settle(boolean committed) {
    if (committed) {
      for (MetricsContainerStepMap m : byTask.values()) {
        settled.updateAll(m);
      }
    }
    byTask = new HashMap<>();
  }

  @Override
  public synchronized MetricsContainerStepMap value() {
    MetricsContainerStepMap snapshot = new MetricsContainerStepMap();
    snapshot.updateAll(settled);
    for (MetricsContainerStepMap m : byTask.values()) {
      snapshot.updateAll(m);
    }
    return snapshot;
  }
}
