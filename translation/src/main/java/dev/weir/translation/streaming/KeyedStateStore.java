package dev.weir.translation.streaming;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.state.TimeDomain;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Keyed state of streaming steps, kept in the memory of the executor JVM that runs a partition's
 * tasks, per (run, step, partition). Each epoch the task of a partition opens its state, which
 * must be at the previous epoch's version, and commits it at the end. A task that fails midway
 * leaves its partition marked, so that a retry fails loudly instead of applying an epoch twice:
 * restoring state needs a checkpoint, which this store does not take.
 */
final class KeyedStateStore {
  private static final Map<String, Partition> PARTITIONS = new ConcurrentHashMap<>();

  private KeyedStateStore() {}

  /** One key's state cells, timers and last known hold. */
  static final class KeyState {
    final KeyStateInternals state;
    final InMemoryTimerInternals timers = new InMemoryTimerInternals();
    /** Pending timers set through {@link #trackedTimers}, by namespace, id and family. */
    final Map<String, TimerInternals.TimerData> pendingTimers = new HashMap<>();
    @Nullable Instant hold;

    /**
     * Moves the key's processing and synchronized processing time to {@code clock}; they never
     * go back, also after the end of input moved them to the end of time.
     */
    void advanceClock(Instant clock) throws Exception {
      if (clock.isAfter(timers.currentProcessingTime())) {
        timers.advanceProcessingTime(clock);
      }
      if (clock.isAfter(timers.currentSynchronizedProcessingTime())) {
        timers.advanceSynchronizedProcessingTime(clock);
      }
    }

    TrackedTimerInternals trackedTimers() {
      return new TrackedTimerInternals(timers, pendingTimers);
    }

    /** The earliest of the state's watermark holds and the pending timers' output timestamps. */
    @Nullable
    Instant earliestHold() {
      Instant earliest = state.earliestHold();
      for (TimerInternals.TimerData timer : pendingTimers.values()) {
        Instant t = timer.getOutputTimestamp();
        if (t != null && (earliest == null || t.isBefore(earliest))) {
          earliest = t;
        }
      }
      return earliest;
    }

    KeyState(Object key) {
      this.state = new KeyStateInternals(key);
    }

    /**
     * Whether nothing is left: no state and no pending timer. For a grouping a processing-time
     * timer alone cannot emit anything once the key's state is gone, so it does not keep the key
     * ({@code processingTimersEmit} false); a user's timer can.
     */
    boolean isEmpty(boolean processingTimersEmit) {
      if (!state.isEmpty()) {
        return false;
      }
      return processingTimersEmit ? !timers.hasPendingTimers() : timers.getNextTimer(TimeDomain.EVENT_TIME) == null;
    }
  }

  /** The keys of one partition of one step. */
  static final class Partition {
    final Map<ByteBuffer, KeyState> keys = new HashMap<>();
    private long version;
    private boolean open;
  }

  static Partition open(String runId, String step, int partition, long epoch) {
    Partition p = PARTITIONS.computeIfAbsent(runId + '\u0000' + step + '\u0000' + partition, k -> new Partition());
    synchronized (p) {
      if (p.open) {
        throw new IllegalStateException(
            "Step '" + step + "', partition " + partition + ": an earlier attempt of this epoch's task "
                + "failed after changing its streaming state, which cannot be restored without a "
                + "checkpoint; the epoch cannot be retried");
      }
      if (p.version != epoch - 1) {
        throw new IllegalStateException(
            "Step '" + step + "', partition " + partition + ": state is at epoch " + p.version
                + " on this executor, but epoch " + epoch + " needs epoch " + (epoch - 1)
                + "; streaming state lives in the executor that ran the partition before, so it "
                + "must run there again (one executor, e.g. local mode)");
      }
      p.open = true;
    }
    return p;
  }

  static void commit(Partition p, long epoch) {
    synchronized (p) {
      p.version = epoch;
      p.open = false;
    }
  }

  /** Forgets the state of every step of {@code runId} held in this JVM. */
  static void dropRun(String runId) {
    PARTITIONS.keySet().removeIf(k -> k.startsWith(runId + '\u0000'));
  }
}
