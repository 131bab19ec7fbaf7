package dev.weir.translation.streaming.state;

import dev.weir.translation.TimePolicies;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Keyed state of streaming steps, in the executor that runs a partition's tasks, through the
 * run's {@link StateBackend}: what the keyed steps call, and what both backends share.
 */
public final class KeyedStateStore {
  private static final long NONE = KeyState.NONE;

  private KeyedStateStore() {}

  /** How a step's keys and timers are written: the key coder and the timer coder. */
  public record Codec(Coder<Object> keyCoder, Coder<TimerInternals.TimerData> timerCoder) {
    public static Codec of(Coder<Object> keyCoder, Coder<? extends BoundedWindow> windowCoder) {
      return new Codec(keyCoder, TimerInternals.TimerDataCoderV2.of(windowCoder));
    }
  }

  /**
   * Opens partition {@code partition} of {@code step} for {@code epoch} at {@code previous}, the
   * last epoch the step ran in (see {@link StateBackend#open}).
   */
  public static KeyedPartition open(
      StateBackend backend,
      String runId,
      String step,
      int partition,
      long epoch,
      long previous,
      Codec codec,
      @Nullable StateFiles files,
      boolean timerHolds) {
    return backend.open(runId, step, partition, epoch, previous, codec, files, timerHolds);
  }

  /** Commits the partition at {@code epoch}, writing what changed to the checkpoint dir if there is one. */
  public static void commit(StateBackend backend, KeyedPartition p, long epoch) throws IOException {
    backend.commit(p, epoch);
  }

  /** Forgets the state of every step of {@code runId} held in this JVM, whichever its backend. */
  public static void dropRun(String runId) {
    MemoryStateBackend.INSTANCE.dropRun(runId);
    RocksDbStateBackend.dropRunInThisJvm(runId);
  }

  static String partitionName(String runId, String step, int partition) {
    return runId + '\u0000' + step + '\u0000' + partition;
  }

  static boolean ofRun(String partitionName, String runId) {
    return partitionName.startsWith(runId + '\u0000');
  }

  static IllegalStateException unreadable(String step, int partition, long epoch, StateFiles files, Exception e) {
    return new IllegalStateException(
        "Step '" + step + "', partition " + partition + ": could not read its state at epoch " + epoch
            + " from the checkpoint dir " + files.dir(), e);
  }

  /**
   * Without a checkpoint dir a partition can only go on from the version this JVM holds: refuses
   * one that an attempt left half-changed, or that is at another epoch than {@code previous}.
   */
  static void checkOpenable(String step, int partition, long epoch, long previous, boolean open, long version) {
    if (open) {
      throw new IllegalStateException(
          "Step '" + step + "', partition " + partition + ": an earlier attempt of this epoch's task "
              + "failed after changing its streaming state, which cannot be restored without a "
              + "checkpoint (--checkpointDir); the epoch cannot be retried");
    }
    if (version != previous) {
      throw new IllegalStateException(
          "Step '" + step + "', partition " + partition + ": state is at epoch " + version
              + " on this executor, but epoch " + epoch + " needs epoch " + previous
              + "; without a checkpoint dir (--checkpointDir) streaming state lives in the executor "
              + "that ran the partition before, so it must run there again (one executor, e.g. local mode)");
    }
  }

  /** Writes a key's processing and synchronized processing time and its pending timers. */
  static void writeClocksAndTimers(KeyState key, DataOutputStream out, Codec codec) throws IOException {
    out.writeLong(key.timers.currentProcessingTime().getMillis());
    Instant synchronizedTime = key.timers.currentSynchronizedProcessingTime();
    out.writeLong(synchronizedTime == null ? NONE : synchronizedTime.getMillis());
    out.writeInt(key.pendingTimers.size());
    for (TimerInternals.TimerData timer : key.pendingTimers.values()) {
      byte[] bytes = CoderUtils.encodeToByteArray(codec.timerCoder(), timer);
      out.writeInt(bytes.length);
      out.write(bytes);
    }
  }

  /** Reads what {@link #writeClocksAndTimers} wrote into a new key. */
  static void readClocksAndTimers(KeyState key, DataInputStream in, Codec codec) throws Exception {
    long processingTime = in.readLong();
    long synchronizedTime = in.readLong();
    if (processingTime > BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) {
      key.timers.advanceProcessingTime(new Instant(processingTime));
    }
    if (synchronizedTime != NONE) {
      key.timers.advanceSynchronizedProcessingTime(new Instant(synchronizedTime));
    }
    int timers = in.readInt();
    TrackedTimerInternals tracked = key.trackedTimers();
    for (int i = 0; i < timers; i++) {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      tracked.setTimer(CoderUtils.decodeFromByteArray(codec.timerCoder(), bytes));
    }
  }

  /**
   * The keys with a timer due in this epoch ({@link KeyedPartition#due}, so also keys touched
   * since: skip them), from the partition's index as the epoch begins: at the new input watermark
   * or, if the policies let processing-time timers fire, at the step's processing time (all of
   * them at the end of input under FIRE_AND_QUIESCE). Besides the keys with elements, no other key
   * can change in the epoch.
   */
  public static Iterator<ByteBuffer> due(KeyedPartition p, TimePolicies policies, Instant inputNow, Instant processingTime)
      throws Exception {
    Instant clock = null;
    if (policies.processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW) {
      boolean endOfInput = !inputNow.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      clock =
          endOfInput && policies.processingTimeEndOfInput() == TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE
              ? BoundedWindow.TIMESTAMP_MAX_VALUE
              : processingTime;
    }
    return p.due(inputNow, clock);
  }
}
