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

  // Transient: a copy of the container starts afresh. A slot is published whole (final fields),
  // so a counter used from another thread, as MetricsContainerImpl allows, never sees a name
  // with another name's cell.
  private transient Slot @Nullable [] slots;
  private transient int next;

  private record Slot(MetricName name, CounterCell cell) {}

  StepMetricsContainer(String stepName) {
    super(stepName);
  }

  @Override
  public CounterCell getCounter(MetricName metricName) {
    Slot[] known = slots;
    if (known == null) {
      known = new Slot[SLOTS];
      slots = known;
    }
    for (Slot slot : known) {
      if (slot != null && slot.name == metricName) {
        return slot.cell;
      }
    }
    CounterCell cell = super.getCounter(metricName);
    known[next] = new Slot(metricName, cell);
    next = (next + 1) % SLOTS;
    return cell;
  }

  /** Forgets the slots too, in case the map makes new cells after a reset. */
  @Override
  public void reset() {
    super.reset();
    slots = null;
  }
}
