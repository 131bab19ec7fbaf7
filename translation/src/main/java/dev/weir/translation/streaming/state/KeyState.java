package dev.weir.translation.streaming.state;

import dev.weir.translation.runtime.TimerAdvance;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.state.TimeDomain;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One key's state cells and timers while an epoch works on it. The cells are the backend's
 * ({@link KeyStateCells}); the timers are Beam's in-memory ones, whichever the backend: a key has
 * few, and the partition indexes each key under its next timer, so that an epoch loads only the
 * keys that have one due.
 */
public final class KeyState implements TimerAdvance.KeyTimers {
  static final long NONE = Long.MIN_VALUE;

  public final KeyStateCells state;
  public final InMemoryTimerInternals timers = new InMemoryTimerInternals();
  /** Every pending timer, set through {@link #trackedTimers}, by namespace, id and family. */
  public final Map<String, TimerInternals.TimerData> pendingTimers = new HashMap<>();
  /** Both of the above, as the key's step sets and fires its timers: one per key. */
  private final TrackedTimerInternals tracked;
  /** The times this key is indexed under in its partition. */
  long indexedEvent = NONE;
  long indexedProcessing = NONE;
  long indexedHold = NONE;
  /** The last epoch the key was touched in (see {@link KeyedPartition#touchedThisEpoch}). */
  long touchedIn = -1;
  /**
   * The earliest hold of the event-time timers that fire in the next epoch at the earliest (see
   * {@code StatefulParDoPartition}), or null; not checkpointed: those timers are due, and the
   * committed watermark held by them.
   */
  public @Nullable Instant deferredHold;

  KeyState(KeyStateCells state) {
    this.state = state;
    this.tracked = new TrackedTimerInternals(timers, pendingTimers);
  }

  /** Once the key is put away: its timers forget the namespaces' keys they remembered. */
  void forgetNamespaceKeys() {
    tracked.forgetNamespaceKeys();
  }

  /**
   * Brings a key the epoch has not touched so far up to the watermark the epoch started at and
   * to its processing time; neither ever goes back.
   */
  public void catchUp(Instant inputWatermark, Instant clock) throws Exception {
    advanceInputWatermark(inputWatermark);
    advanceClock(clock);
  }

  /**
   * Moves the key's processing and synchronized processing time to {@code clock}; they never go
   * back, also after the end of input moved them to the end of time.
   */
  public void advanceClock(Instant clock) throws Exception {
    advanceClock(clock, clock);
  }

  /** Moves the key's processing time to {@code processing} and its synchronized one to {@code synchronizedTime}. */
  @Override
  public void advanceClock(Instant processing, Instant synchronizedTime) throws Exception {
    TimerAdvance.advanceClock(timers, processing, synchronizedTime);
  }

  public TrackedTimerInternals trackedTimers() {
    return tracked;
  }

  @Override
  public TimerInternals.@Nullable TimerData removeNextDue(TimeDomain domain) {
    return tracked.removeNext(domain);
  }

  @Override
  public void advanceInputWatermark(Instant watermark) throws Exception {
    TimerAdvance.advanceInputWatermark(timers, watermark);
  }

  /**
   * The earliest of the state's watermark holds and, if {@code timerHolds}, the pending timers'
   * output timestamps.
   */
  @Nullable
  Instant earliestHold(boolean timerHolds) {
    return earliestHold(timerHolds, state.earliestHold());
  }

  /** As {@link #earliestHold(boolean)}, with the cells' earliest hold known. */
  @Nullable
  Instant earliestHold(boolean timerHolds, @Nullable Instant cellsHold) {
    Instant earliest = cellsHold;
    if (deferredHold != null && (earliest == null || deferredHold.isBefore(earliest))) {
      earliest = deferredHold;
    }
    if (timerHolds) {
      for (TimerInternals.TimerData timer : pendingTimers.values()) {
        Instant t = timer.getOutputTimestamp();
        if (t != null && (earliest == null || t.isBefore(earliest))) {
          earliest = t;
        }
      }
    }
    return earliest;
  }

  /**
   * Whether nothing is left: no state and no pending timer. For a grouping a processing-time
   * timer alone cannot emit anything once the key's state is gone, so it does not keep the key
   * ({@code processingTimersEmit} false); a user's timer can.
   */
  boolean isEmpty(boolean processingTimersEmit) {
    return isEmpty(processingTimersEmit, state.isEmpty());
  }

  /** As {@link #isEmpty(boolean)}, with whether the cells are empty known. */
  boolean isEmpty(boolean processingTimersEmit, boolean cellsEmpty) {
    if (!cellsEmpty) {
      return false;
    }
    return processingTimersEmit ? pendingTimers.isEmpty() : nextEventTimer() == NONE;
  }

  /** The key's next event-time timer, or {@link #NONE}. */
  long nextEventTimer() {
    return next(TimeDomain.EVENT_TIME, TimeDomain.EVENT_TIME);
  }

  /** The key's next processing-time or synchronized processing-time timer, or {@link #NONE}. */
  long nextProcessingTimer() {
    return next(TimeDomain.PROCESSING_TIME, TimeDomain.SYNCHRONIZED_PROCESSING_TIME);
  }

  /**
   * The earliest pending timer in either domain, from {@link #pendingTimers} (which holds every
   * timer {@link #timers} does, since both are set through {@link #trackedTimers}): Beam's {@code
   * InMemoryTimerInternals.getNextTimer} throws and catches an exception for an empty domain,
   * which cost more than the rest of indexing a key with no processing-time timer.
   */
  private long next(TimeDomain a, TimeDomain b) {
    long next = NONE;
    for (TimerInternals.TimerData timer : pendingTimers.values()) {
      if (timer.getDomain() == a || timer.getDomain() == b) {
        long t = timer.getTimestamp().getMillis();
        if (next == NONE || t < next) {
          next = t;
        }
      }
    }
    return next;
  }
}
