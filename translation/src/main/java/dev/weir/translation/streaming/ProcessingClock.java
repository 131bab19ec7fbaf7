package dev.weir.translation.streaming;

import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A streaming run's processing time: each epoch's clock, at which its elements arrive, and each
 * step's, at which it fires processing-time timers. Both follow the wall clock and never go back;
 * both are recorded in the {@link EpochReplayLog}, so that an epoch run again after a crash sees
 * the times it saw. A TestStream drives the clock instead (from the start of time on), and then a
 * step's clock is the epoch's.
 */
final class ProcessingClock {
  private final boolean testClock;
  private final EpochReplayLog replayLog;
  private Instant clock;
  /** The current step's processing time, once asked for. */
  private @Nullable Instant stepClock;

  ProcessingClock(boolean testClock, EpochReplayLog replayLog) {
    this.testClock = testClock;
    this.replayLog = replayLog;
    this.clock = testClock ? BoundedWindow.TIMESTAMP_MIN_VALUE : Instant.now();
  }

  /** Sets the clock of epoch {@code epoch}: the wall clock, or what the epoch had when it ran. */
  void beginEpoch(long epoch) {
    if (!testClock) {
      Instant now = Instant.now();
      if (now.isAfter(clock)) {
        clock = now;
      }
    }
    clock = replayLog.time(epoch, "clock", clock);
  }

  /** The current epoch's processing time. */
  Instant epochTime() {
    return clock;
  }

  /** Forgets the previous step's clock. */
  void beginStep() {
    stepClock = null;
  }

  /**
   * The processing time of {@code step} in {@code epoch}: the wall clock when first asked, never
   * before the epoch's clock; a TestStream's is the epoch's.
   */
  Instant stepTime(long epoch, String step) {
    if (stepClock == null) {
      Instant now = Instant.now();
      stepClock = testClock ? clock : replayLog.time(epoch, "clock-" + CheckpointDir.stepDir(step), now.isAfter(clock) ? now : clock);
    }
    return stepClock;
  }

  /** Moves a TestStream's clock on. */
  void advanceTestClock(Duration by) {
    clock = clock.plus(by);
  }

  /** Continues from a commit's clock: a TestStream's as it was, the wall clock's if it is later. */
  void restore(Instant committed) {
    if (testClock || committed.isAfter(clock)) {
      clock = committed;
    }
  }
}
