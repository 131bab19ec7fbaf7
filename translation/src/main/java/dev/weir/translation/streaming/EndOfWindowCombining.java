package dev.weir.translation.streaming;

import dev.weir.translation.runtime.KeyWindowCombiner;
import dev.weir.translation.streaming.state.KeyState;
import java.io.Serializable;
import java.util.List;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.util.WindowedValueReceiver;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * The keyed side of a streaming {@code Combine.PerKey} whose windows each fire exactly once, when
 * the watermark passes their end: the default trigger, no allowed lateness, windows that do not
 * merge, and output at the end of the window. For those Beam's {@code ReduceFnRunner} does what
 * this does, one key at a time, through a trigger state machine, pane bookkeeping and contexts
 * per window; that machinery took most of a firing epoch's time in Nexmark q5.
 *
 * <p>Per key and window it keeps the accumulator, a watermark hold at the window's end (so the
 * pane is not late downstream) and an event-time timer there. Each partial accumulator that
 * arrives is merged in. When the timer fires the window's one pane goes out, {@code ON_TIME},
 * first and last, with the extracted output at the window's end, and the window's state is
 * cleared. An element whose window is past its end when it arrives was dropped before it came
 * here, as Beam drops it without allowed lateness.
 */
final class EndOfWindowCombining implements Serializable {
  private static final StateTag<WatermarkHoldState> HOLD =
      StateTags.watermarkStateInternal("hold", TimestampCombiner.END_OF_WINDOW);

  private final KeyWindowCombiner combiner;
  private final Coder<BoundedWindow> windowCoder;
  private final StateTag<ValueState<Object>> accumulatorTag;

  EndOfWindowCombining(KeyWindowCombiner combiner, Coder<BoundedWindow> windowCoder, Coder<Object> accumulatorCoder) {
    this.combiner = combiner;
    this.windowCoder = windowCoder;
    this.accumulatorTag = StateTags.value("accumulator", accumulatorCoder);
  }

  /**
   * Why a combining step under {@code strategy} needs Beam's {@code ReduceFnRunner} (more panes
   * than one per window, or windows that merge), or null if this does what it would.
   */
  static @Nullable String whyNot(WindowingStrategy<?, ?> strategy) {
    if (!(strategy.getTrigger() instanceof DefaultTrigger)) {
      return "the trigger " + strategy.getTrigger() + " may fire more than once";
    }
    if (!strategy.getAllowedLateness().equals(Duration.ZERO)) {
      return "allowed lateness " + strategy.getAllowedLateness() + " fires late panes";
    }
    if (!strategy.getWindowFn().isNonMerging()) {
      return "the windows merge";
    }
    if (strategy.getTimestampCombiner() != TimestampCombiner.END_OF_WINDOW) {
      return "the timestamp combiner " + strategy.getTimestampCombiner() + " needs each element's timestamp";
    }
    return null;
  }

  /** Merges a key's partial accumulators (the elements' values) into its windows' state. */
  void processElements(KeyState key, Iterable<WindowedValue<Object>> elements) {
    for (WindowedValue<Object> element : elements) {
      Object partial = element.getValue();
      for (BoundedWindow window : element.getWindows()) {
        StateNamespace namespace = StateNamespaces.window(windowCoder, window);
        ValueState<Object> accumulator = key.state.state(namespace, accumulatorTag);
        Object current = accumulator.read();
        if (current == null) {
          accumulator.write(partial);
          key.state.state(namespace, HOLD).add(window.maxTimestamp());
          key.trackedTimers().setTimer(namespace, "", "", window.maxTimestamp(), window.maxTimestamp(), TimeDomain.EVENT_TIME);
        } else {
          accumulator.write(combiner.mergeAccumulators(current, partial));
        }
      }
    }
  }

  /** Emits the pane of each window whose timer is due, and clears the window's state. */
  void onTimers(KeyState key, List<TimerData> due, WindowedValueReceiver<KV<Object, Object>> out) throws Exception {
    for (TimerData timer : due) {
      if (timer.getDomain() != TimeDomain.EVENT_TIME || !(timer.getNamespace() instanceof StateNamespaces.WindowNamespace)) {
        throw new IllegalStateException("A combining step set no timer " + timer);
      }
      @SuppressWarnings("unchecked")
      BoundedWindow window = ((StateNamespaces.WindowNamespace<BoundedWindow>) timer.getNamespace()).getWindow();
      ValueState<Object> accumulator = key.state.state(timer.getNamespace(), accumulatorTag);
      Object combined = accumulator.read();
      accumulator.clear();
      key.state.state(timer.getNamespace(), HOLD).clear();
      if (combined != null) {
        out.output(
            WindowedValues.of(
                KV.of(key.state.getKey(), combiner.extractOutput(combined)),
                window.maxTimestamp(),
                window,
                PaneInfo.ON_TIME_AND_ONLY_FIRING));
      }
    }
  }
}
