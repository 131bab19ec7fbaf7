package dev.weir.translation.streaming;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * What an epoch decided that must not change if it runs again: its processing clock, each step's
 * clock, how many records each source split read. Each decision is written to the checkpoint
 * dir's plan of the epoch as it is taken ({@link CheckpointDir#writePlan}); a run that resumes
 * after a commit whose next epoch had started reads that plan back, and the epoch runs again as it
 * ran then, emitting the same panes to the same files. Without a checkpoint dir nothing is
 * recorded and every decision is taken afresh.
 */
final class EpochReplayLog {
  private final @Nullable CheckpointDir checkpoints;
  /** The plan of the epoch to run again, by decision. */
  private Map<String, byte[]> replay = Map.of();
  private long replayEpoch = -1;

  EpochReplayLog(@Nullable CheckpointDir checkpoints) {
    this.checkpoints = checkpoints;
  }

  /** Reads what the epoch after {@code committedEpoch}, the next to run, decided before it was cut short. */
  void resumeAfter(long committedEpoch) {
    if (checkpoints == null) {
      return;
    }
    try {
      replay = checkpoints.readPlan(committedEpoch + 1);
    } catch (IOException e) {
      throw new IllegalStateException("Could not read epoch " + (committedEpoch + 1) + " from --checkpointDir=" + checkpoints, e);
    }
    replayEpoch = committedEpoch + 1;
  }

  /** Whether the epoch after the restored commit had started: it runs again as it ran then. */
  boolean replaysNextEpoch() {
    return !replay.isEmpty();
  }

  /**
   * {@code time}, recorded in {@code epoch}'s plan under {@code name}; in an epoch run again, the
   * time recorded then. Without a checkpoint dir, {@code time}.
   */
  Instant time(long epoch, String name, Instant time) {
    if (checkpoints == null) {
      return time;
    }
    byte[] planned = planned(epoch, name);
    if (planned != null) {
      return new Instant(ByteBuffer.wrap(planned).getLong());
    }
    write(epoch, name, ByteBuffer.allocate(8).putLong(time.getMillis()).array());
    return time;
  }

  /**
   * How many records each split of source {@code step} read in the interrupted attempt of {@code
   * epoch}, or null: the epoch is not run again, or the attempt had not read there.
   */
  long @Nullable [] reads(long epoch, String step) {
    byte[] planned = planned(epoch, readsName(step));
    if (planned == null) {
      return null;
    }
    LongBuffer counts = ByteBuffer.wrap(planned).asLongBuffer();
    long[] reads = new long[counts.remaining()];
    counts.get(reads);
    return reads;
  }

  /** Records how many records each split of source {@code step} read in {@code epoch}, unless recorded already. */
  void recordReads(long epoch, String step, long[] reads) {
    if (checkpoints == null || reads(epoch, step) != null) {
      return;
    }
    ByteBuffer bytes = ByteBuffer.allocate(8 * reads.length);
    bytes.asLongBuffer().put(reads);
    write(epoch, readsName(step), bytes.array());
  }

  private static String readsName(String step) {
    return "read-" + CheckpointDir.stepDir(step);
  }

  private byte @Nullable [] planned(long epoch, String name) {
    return epoch == replayEpoch ? replay.get(name) : null;
  }

  private void write(long epoch, String name, byte[] data) {
    try {
      checkpoints.writePlan(epoch, name, data);
    } catch (IOException e) {
      throw new IllegalStateException("Could not record epoch " + epoch + " in --checkpointDir=" + checkpoints, e);
    }
  }
}
