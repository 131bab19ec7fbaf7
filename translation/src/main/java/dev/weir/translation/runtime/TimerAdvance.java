package dev.weir.translation.runtime;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The one place that says how a key's timers fire when its step's clock and input watermark
 * move: in batch once, to the end of input; in streaming once per epoch. What fires (a grouping's
 * trigger, a stateful DoFn) and the key's clock are the caller's ({@link KeyTimers}, {@link
 * Firing}); the order is this:
 *
 * <ol>
 *   <li>with processing-time timers allowed, the clock at which the input arrived: the
 *       processing-time timers due by then fire;
 *   <li>at the end of input, with {@code --processingTimeEndOfInput=FIRE_AND_QUIESCE}, the clock
 *       jumps to the end of time: the pending processing-time timers fire once, before the
 *       watermark closes the windows (so their panes stay early ones), and those their firing
 *       sets are dropped; with {@code IGNORE} they are dropped unfired;
 *   <li>the new input watermark: the event-time timers due fire, until none is (and, before the
 *       end of input, processing-time timers that their firing sets and that are due already);
 *   <li>before the end of input, if the step has a clock of its own (streaming: the wall clock
 *       when the step runs, after the steps upstream), the clock moves to it and every timer that
 *       falls due fires.
 * </ol>
 *
 * <p>Timers fire in rounds until none is due, so that a timer that firing sets, and that is due
 * already, fires too.
 */
public final class TimerAdvance implements java.io.Serializable {
  /** A key's timers and clocks, as the step keeps them. */
  public interface KeyTimers {
    /** The key's next timer of {@code domain} due at its current times, removed; or null. */
    @Nullable
    TimerData removeNextDue(TimeDomain domain);

    /** Moves the key's processing and synchronized processing time on; neither goes back. */
    void advanceClock(Instant processing, Instant synchronizedTime) throws Exception;

    /** Moves the key's input watermark on; it never goes back. */
    void advanceInputWatermark(Instant watermark) throws Exception;
  }

  /** Fires due timers. */
  public interface Firing {
    void fire(List<TimerData> due) throws Exception;
  }

  /** How due timers are handed to {@link Firing}. */
  public enum Batching {
    /** All those due at once (a grouping's {@code ReduceFnRunner.onTimers}). */
    TOGETHER,
    /** One at a time, in time order per domain (a DoFn's {@code onTimer}). */
    ONE_BY_ONE
  }

  private static final TimeDomain[] PROCESSING = {TimeDomain.PROCESSING_TIME, TimeDomain.SYNCHRONIZED_PROCESSING_TIME};
  private static final TimeDomain[] EVENT = {TimeDomain.EVENT_TIME};
  private static final TimeDomain[] ALL = {
    TimeDomain.EVENT_TIME, TimeDomain.PROCESSING_TIME, TimeDomain.SYNCHRONIZED_PROCESSING_TIME
  };

  private final TimePolicies policies;
  private final Batching batching;

  public TimerAdvance(TimePolicies policies, Batching batching) {
    this.policies = policies;
    this.batching = batching;
  }

  /**
   * Fires what is due before a key's input is processed: with processing-time timers allowed,
   * those due at {@code arrival} (the clock moves there); then the event-time timers due at the
   * key's current watermark (in streaming, those that fire an epoch after the elements that set
   * them), so that their panes and outputs do not take in elements that came later.
   */
  public void beforeInput(KeyTimers key, Firing firing, Instant arrival) throws Exception {
    if (processingTime()) {
      key.advanceClock(arrival, arrival);
      fireWhileDue(key, firing, PROCESSING);
    }
    fireWhileDue(key, firing, EVENT);
  }

  /** A key's timers in Beam's {@link InMemoryTimerInternals}, whose clocks this keeps from going back. */
  public static KeyTimers inMemory(InMemoryTimerInternals timers) {
    return new KeyTimers() {
      @Override
      public @Nullable TimerData removeNextDue(TimeDomain domain) {
        return TimerAdvance.removeNextDue(timers, domain);
      }

      @Override
      public void advanceClock(Instant processing, Instant synchronizedTime) throws Exception {
        TimerAdvance.advanceClock(timers, processing, synchronizedTime);
      }

      @Override
      public void advanceInputWatermark(Instant watermark) throws Exception {
        TimerAdvance.advanceInputWatermark(timers, watermark);
      }
    };
  }

  /** {@code timers}' next timer of {@code domain} due at their current times, removed; or null. */
  public static @Nullable TimerData removeNextDue(InMemoryTimerInternals timers, TimeDomain domain) {
    switch (domain) {
      case EVENT_TIME:
        return timers.removeNextEventTimer();
      case PROCESSING_TIME:
        return timers.removeNextProcessingTimer();
      default:
        return timers.removeNextSynchronizedProcessingTimer();
    }
  }

  /** Moves {@code timers}' processing and synchronized processing time on, never back. */
  public static void advanceClock(InMemoryTimerInternals timers, Instant processing, Instant synchronizedTime)
      throws Exception {
    if (processing.isAfter(timers.currentProcessingTime())) {
      timers.advanceProcessingTime(processing);
    }
    Instant current = timers.currentSynchronizedProcessingTime();
    if (current == null || synchronizedTime.isAfter(current)) {
      timers.advanceSynchronizedProcessingTime(synchronizedTime);
    }
  }

  /** Moves {@code timers}' input watermark on, never back. */
  public static void advanceInputWatermark(InMemoryTimerInternals timers, Instant watermark) throws Exception {
    if (watermark.isAfter(timers.currentInputWatermarkTime())) {
      timers.advanceInputWatermark(watermark);
    }
  }

  private boolean processingTime() {
    return policies.processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW;
  }

  /**
   * Moves one key along steps 1-4.
   *
   * @param arrival the processing time at which the input arrived (the synchronized processing
   *     time too)
   * @param watermark the new input watermark; the end of time is the end of input
   * @param stepClock the step's own processing time (step 4), or null
   */
  public void advance(KeyTimers key, Firing firing, Instant arrival, Instant watermark, @Nullable Instant stepClock)
      throws Exception {
    boolean endOfInput = !watermark.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
    if (processingTime()) {
      key.advanceClock(arrival, arrival);
      fireWhileDue(key, firing, PROCESSING);
      if (endOfInput) {
        key.advanceClock(BoundedWindow.TIMESTAMP_MAX_VALUE, BoundedWindow.TIMESTAMP_MAX_VALUE);
        List<TimerData> pending = removeDue(key, PROCESSING);
        if (policies.processingTimeEndOfInput() == TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE) {
          fire(firing, pending);
          removeDue(key, PROCESSING);
        }
      }
    }
    key.advanceInputWatermark(watermark);
    // Before the end of input, processing-time timers that the firing makes due fire with them.
    fireWhileDue(key, firing, processingTime() && !endOfInput ? ALL : EVENT);
    if (processingTime() && !endOfInput && stepClock != null) {
      key.advanceClock(stepClock, arrival);
      fireWhileDue(key, firing, ALL);
    }
  }

  private void fireWhileDue(KeyTimers key, Firing firing, TimeDomain[] domains) throws Exception {
    boolean fired = true;
    while (fired) {
      fired = false;
      if (batching == Batching.TOGETHER) {
        List<TimerData> due = removeDue(key, domains);
        fired = !due.isEmpty();
        fire(firing, due);
        continue;
      }
      for (TimeDomain domain : domains) {
        for (TimerData t = key.removeNextDue(domain); t != null; t = key.removeNextDue(domain)) {
          firing.fire(List.of(t));
          fired = true;
        }
      }
    }
  }

  private void fire(Firing firing, List<TimerData> due) throws Exception {
    if (due.isEmpty()) {
      return;
    }
    if (batching == Batching.TOGETHER) {
      firing.fire(due);
      return;
    }
    for (TimerData t : due) {
      firing.fire(List.of(t));
    }
  }

  private static List<TimerData> removeDue(KeyTimers key, TimeDomain[] domains) {
    List<TimerData> due = new ArrayList<>();
    for (TimeDomain domain : domains) {
      for (TimerData t = key.removeNextDue(domain); t != null; t = key.removeNextDue(domain)) {
        due.add(t);
      }
    }
    return due;
  }
}
