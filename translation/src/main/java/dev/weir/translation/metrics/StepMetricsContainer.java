package dev.weir.translation.metrics;

import org.apache.beam.runners.core.metrics.CounterCell;
import org.apache.beam.runners.core.metrics.MetricsContainerImpl;
import org.apache.beam.sdk.metrics.MetricName;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * One step's metrics in one bundle, finding a counter's cell by the identity of its name first.
 *
 * <p>A {@code Counter} a DoFn holds asks the current container for its cell on every
 * {@code inc()}, and {@link MetricsContainerImpl} answers from a concurrent map keyed by the
 * name's value: a hash over namespace, name and labels per call. A DoFn that counts each element
 * (Nexmark's result counter does, twice) spent about a tenth of a query's executor time there.
 * The same few name objects come back on every call, so a few slots compared by reference answer
 * almost all of them; any other name goes to the map as before.
 */
final class StepMetricsContainer extends MetricsContainerImpl {
  private static final int SLOTS = 4;

  // Transient: only the task's own thread uses these; a copy of the container starts afresh.
  private transient MetricName @Nullable [] names;
  private transient CounterCell @Nullable [] cells;
  private transient int next;

  StepMetricsContainer(String stepName) {
    super(stepName);
  }

  @Override
  public CounterCell getCounter(MetricName metricName) {
    if (names == null || cells == null) {
      names = new MetricName[SLOTS];
      cells = new CounterCell[SLOTS];
    }
    for (int i = 0; i < SLOTS; i++) {
      if (names[i] == metricName) {
        return cells[i];
      }
    }
    CounterCell cell = super.getCounter(metricName);
    names[next] = metricName;
    cells[next] = cell;
    next = (next + 1) % SLOTS;
    return cell;
  }

  /** Forgets the slots too, in case the map makes new cells after a reset. */
  @Override
  public void reset() {
    super.reset();
    names = null;
    cells = null;
  }
}
