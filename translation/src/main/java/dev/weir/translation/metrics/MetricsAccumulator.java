package dev.weir.translation.metrics;

import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.spark.util.AccumulatorV2;

/**
 * Beam metrics of every step as one Spark accumulator. Tasks add the metrics of their bundles;
 * Spark merges them on the driver, from every task attempt or only from successful ones
 * depending on how the accumulator was registered ({@link PipelineMetrics}).
 */
final class MetricsAccumulator extends AccumulatorV2<MetricsContainerStepMap, MetricsContainerStepMap> {
  private MetricsContainerStepMap metrics = new MetricsContainerStepMap();

  @Override
  public synchronized boolean isZero() {
    // Null while a task deserializes it: Spark registers an accumulator with its task (where the
    // executor's heartbeat can see it) while reading AccumulatorV2's fields, before this class's.
    return metrics == null || metrics.equals(new MetricsContainerStepMap());
  }

  @Override
  public synchronized MetricsAccumulator copy() {
    MetricsAccumulator copy = new MetricsAccumulator();
    copy.metrics.updateAll(metrics);
    return copy;
  }

  @Override
  public synchronized void reset() {
    // A fresh map, not MetricsContainerStepMap.reset(), which keeps empty containers behind and
    // so would not compare equal to zero.
    metrics = new MetricsContainerStepMap();
  }

  @Override
  public synchronized void add(MetricsContainerStepMap update) {
    metrics.updateAll(update);
  }

  @Override
  public void merge(AccumulatorV2<MetricsContainerStepMap, MetricsContainerStepMap> other) {
    add(other.value());
  }

  /** The merged metrics; a copy, so that readers on other threads see a consistent snapshot. */
  @Override
  public synchronized MetricsContainerStepMap value() {
    MetricsContainerStepMap snapshot = new MetricsContainerStepMap();
    snapshot.updateAll(metrics);
    return snapshot;
  }
}
