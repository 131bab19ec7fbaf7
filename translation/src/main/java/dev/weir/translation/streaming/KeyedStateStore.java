package dev.weir.translation.streaming;

import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.TimerAdvance;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Keyed state of streaming steps, kept in the memory of the executor JVM that runs a partition's
 * tasks, per (run, step, partition). Each epoch the task of a partition opens its state, which
 * must be at the previous epoch's version, and commits it at the end.
 *
 * <p>With a checkpoint dir ({@link StateFiles}) the commit also writes the keys the epoch changed
 * (now and then all keys, see {@link Partition#checkpoint}), and a partition that is not here at
 * the version needed (a restarted pipeline, another executor, a retried task) is read back from
 * there. Without one, a task that fails midway leaves its partition marked, so that a retry fails
 * loudly instead of applying an epoch twice.
 *
 * <p>Each partition indexes its keys by their next event-time and processing-time timer and by
 * their hold, so an epoch visits only the keys that received elements or have a timer due, and
 * the partition's earliest hold is read off the index: the cost of an epoch follows the keys it
 * touches, not all keys.
 */
final class KeyedStateStore {
  private static final Map<String, Partition> PARTITIONS = new ConcurrentHashMap<>();
  private static final long NONE = Long.MIN_VALUE;

  private KeyedStateStore() {}

  /** How a step's keys and timers are written: the key coder and the timer coder. */
  record Codec(Coder<Object> keyCoder, Coder<TimerInternals.TimerData> timerCoder) {
    static Codec of(Coder<Object> keyCoder, Coder<? extends BoundedWindow> windowCoder) {
      return new Codec(keyCoder, TimerInternals.TimerDataCoderV2.of(windowCoder));
    }
  }

  /** One key's state cells and timers. */
  static final class KeyState implements TimerAdvance.KeyTimers {
    final KeyStateInternals state;
    final InMemoryTimerInternals timers = new InMemoryTimerInternals();
    /** Every pending timer, set through {@link #trackedTimers}, by namespace, id and family. */
    final Map<String, TimerInternals.TimerData> pendingTimers = new HashMap<>();
    /** Both of the above, as the key's step sets and fires its timers: one per key. */
    private final TrackedTimerInternals tracked;
    /** The times this key is indexed under in its partition. */
    private long indexedEvent = NONE;
    private long indexedProcessing = NONE;
    private long indexedHold = NONE;
    /**
     * The earliest hold of the event-time timers that fire in the next epoch at the earliest
     * (see {@code StatefulParDoPartition}), or null; not checkpointed: those timers are due, and
     * the committed watermark held by them.
     */
    @Nullable Instant deferredHold;

    KeyState(Object key) {
      this.state = new KeyStateInternals(key);
      this.tracked = new TrackedTimerInternals(timers, pendingTimers);
    }

    /**
     * Brings a key the epoch has not touched so far up to the watermark the epoch started at and
     * to its processing time; neither ever goes back.
     */
    void catchUp(Instant inputWatermark, Instant clock) throws Exception {
      advanceInputWatermark(inputWatermark);
      advanceClock(clock);
    }

    /**
     * Moves the key's processing and synchronized processing time to {@code clock}; they never
     * go back, also after the end of input moved them to the end of time.
     */
    void advanceClock(Instant clock) throws Exception {
      advanceClock(clock, clock);
    }

    /** Moves the key's processing time to {@code processing} and its synchronized one to {@code synchronizedTime}. */
    @Override
    public void advanceClock(Instant processing, Instant synchronizedTime) throws Exception {
      TimerAdvance.advanceClock(timers, processing, synchronizedTime);
    }

    TrackedTimerInternals trackedTimers() {
      return tracked;
    }

    @Override
    public TimerInternals.@Nullable TimerData removeNextDue(org.apache.beam.sdk.state.TimeDomain domain) {
      return trackedTimers().removeNext(domain);
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
      Instant earliest = state.earliestHold();
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
      if (!state.isEmpty()) {
        return false;
      }
      return processingTimersEmit ? !timers.hasPendingTimers() : timers.getNextTimer(TimeDomain.EVENT_TIME) == null;
    }

    private long nextProcessingTimer() {
      Instant a = timers.getNextTimer(TimeDomain.PROCESSING_TIME);
      Instant b = timers.getNextTimer(TimeDomain.SYNCHRONIZED_PROCESSING_TIME);
      if (a == null) {
        return b == null ? NONE : b.getMillis();
      }
      return b == null || a.isBefore(b) ? a.getMillis() : b.getMillis();
    }

    void writeTo(DataOutputStream out, Codec codec) throws IOException {
      out.writeLong(timers.currentProcessingTime().getMillis());
      Instant synchronizedTime = timers.currentSynchronizedProcessingTime();
      out.writeLong(synchronizedTime == null ? NONE : synchronizedTime.getMillis());
      out.writeInt(pendingTimers.size());
      for (TimerInternals.TimerData timer : pendingTimers.values()) {
        byte[] bytes = CoderUtils.encodeToByteArray(codec.timerCoder(), timer);
        out.writeInt(bytes.length);
        out.write(bytes);
      }
      state.writeTo(out);
    }

    static KeyState readFrom(DataInputStream in, Object key, Codec codec) throws Exception {
      KeyState keyState = new KeyState(key);
      long processingTime = in.readLong();
      long synchronizedTime = in.readLong();
      if (processingTime > BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) {
        keyState.timers.advanceProcessingTime(new Instant(processingTime));
      }
      if (synchronizedTime != NONE) {
        keyState.timers.advanceSynchronizedProcessingTime(new Instant(synchronizedTime));
      }
      int timers = in.readInt();
      TrackedTimerInternals tracked = keyState.trackedTimers();
      for (int i = 0; i < timers; i++) {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        tracked.setTimer(CoderUtils.decodeFromByteArray(codec.timerCoder(), bytes));
      }
      keyState.state.readFrom(in);
      return keyState;
    }
  }

  /** A key indexed under a time. */
  private record Entry(long time, ByteBuffer key) implements Comparable<Entry> {
    @Override
    public int compareTo(Entry o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  /** The keys of one partition of one step. */
  static final class Partition {
    private final Map<ByteBuffer, KeyState> keys = new HashMap<>();
    private final TreeSet<Entry> eventTimers = new TreeSet<>();
    private final TreeSet<Entry> processingTimers = new TreeSet<>();
    private final TreeSet<Entry> holds = new TreeSet<>();
    /** Keys changed (or dropped) since the last commit. */
    private final Set<ByteBuffer> dirty = new HashSet<>();
    private final Codec codec;
    private final @Nullable StateFiles files;
    private final int index;
    private long version;
    private boolean open;
    /** Keys in the last full snapshot, and key records written since: see {@link #checkpoint}. */
    private long keysAtLastFull;
    private long keysWrittenSinceFull;
    private long lastFullEpoch = NONE;

    Partition(int index, Codec codec, @Nullable StateFiles files) {
      this.index = index;
      this.codec = codec;
      this.files = files;
    }

    @Nullable
    KeyState get(ByteBuffer key) {
      return keys.get(key);
    }

    /** The key's state, new if it had none: its timers start at {@code inputWatermark}. */
    KeyState getOrCreate(ByteBuffer key, Object decodedKey, Instant inputWatermark) throws Exception {
      KeyState keyState = keys.get(key);
      if (keyState == null) {
        keyState = new KeyState(decodedKey);
        keyState.timers.advanceInputWatermark(inputWatermark);
        keys.put(key, keyState);
        dirty.add(key);
      }
      return keyState;
    }

    /**
     * The keys with a timer due at {@code watermark} (event time) or {@code clock} (processing
     * time; null: none), from the index, in time order.
     */
    Set<ByteBuffer> due(Instant watermark, @Nullable Instant clock) {
      Set<ByteBuffer> due = new LinkedHashSet<>();
      collect(eventTimers, watermark.getMillis(), due);
      if (clock != null) {
        collect(processingTimers, clock.getMillis(), due);
      }
      return due;
    }

    private static void collect(TreeSet<Entry> index, long upTo, Set<ByteBuffer> into) {
      for (Entry e : index) {
        if (e.time() > upTo) {
          break;
        }
        into.add(e.key());
      }
    }

    /**
     * Records what the epoch did to a key: drops it if nothing is left, else re-indexes it under
     * its next timers and its hold ({@code timerHolds}: whether pending timers' output
     * timestamps hold, as for a user's DoFn). Marks it for the next checkpoint.
     */
    void touch(ByteBuffer key, KeyState keyState, boolean timerHolds, boolean processingTimersEmit) {
      keyState.state.compact();
      dirty.add(key);
      unindex(key, keyState);
      if (keyState.isEmpty(processingTimersEmit)) {
        keys.remove(key);
        return;
      }
      index(key, keyState, timerHolds);
    }

    private void unindex(ByteBuffer key, KeyState keyState) {
      if (keyState.indexedEvent != NONE) {
        eventTimers.remove(new Entry(keyState.indexedEvent, key));
      }
      if (keyState.indexedProcessing != NONE) {
        processingTimers.remove(new Entry(keyState.indexedProcessing, key));
      }
      if (keyState.indexedHold != NONE) {
        holds.remove(new Entry(keyState.indexedHold, key));
      }
      keyState.indexedEvent = NONE;
      keyState.indexedProcessing = NONE;
      keyState.indexedHold = NONE;
    }

    private void index(ByteBuffer key, KeyState keyState, boolean timerHolds) {
      Instant event = keyState.timers.getNextTimer(TimeDomain.EVENT_TIME);
      keyState.indexedEvent = event == null ? NONE : event.getMillis();
      keyState.indexedProcessing = keyState.nextProcessingTimer();
      Instant hold = keyState.earliestHold(timerHolds);
      keyState.indexedHold = hold == null ? NONE : hold.getMillis();
      if (keyState.indexedEvent != NONE) {
        eventTimers.add(new Entry(keyState.indexedEvent, key));
      }
      if (keyState.indexedProcessing != NONE) {
        processingTimers.add(new Entry(keyState.indexedProcessing, key));
      }
      if (keyState.indexedHold != NONE) {
        holds.add(new Entry(keyState.indexedHold, key));
      }
    }

    /** The earliest hold of any key, or the end of time. */
    long earliestHold() {
      return holds.isEmpty() ? BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis() : holds.first().time();
    }

    /** The earliest pending event-time timer of any key, or Long.MAX_VALUE. */
    long nextEventTimer() {
      return eventTimers.isEmpty() ? Long.MAX_VALUE : eventTimers.first().time();
    }

    /** The earliest pending processing-time (or synchronized processing-time) timer, or Long.MAX_VALUE. */
    long nextProcessingTimer() {
      return processingTimers.isEmpty() ? Long.MAX_VALUE : processingTimers.first().time();
    }

    int size() {
      return keys.size();
    }

    /**
     * Writes the keys changed since the last commit, or all keys once the changes written since
     * the last full snapshot outnumber the keys it held: each epoch writes what it touched, a full
     * snapshot's cost is spread over the epochs before it, and a restore reads at most about
     * twice the keys there are.
     */
    private void checkpoint(long epoch) throws IOException {
      if (files == null) {
        return;
      }
      boolean full = keysWrittenSinceFull + dirty.size() > Math.max(keysAtLastFull, 1_000);
      Iterable<ByteBuffer> toWrite = full ? keys.keySet() : dirty;
      int written = full ? keys.size() : dirty.size();
      files.write(index, epoch, full, out -> {
        out.writeInt(written);
        for (ByteBuffer key : toWrite) {
          byte[] bytes = new byte[key.remaining()];
          key.duplicate().get(bytes);
          out.writeInt(bytes.length);
          out.write(bytes);
          KeyState keyState = keys.get(key);
          out.writeBoolean(keyState != null);
          if (keyState != null) {
            keyState.writeTo(out, codec);
          }
        }
      });
      dirty.clear();
      if (full) {
        // Every epoch before this one is committed (this epoch started after the last commit),
        // so the previous full snapshot stays readable; what came before it is no longer needed.
        if (lastFullEpoch != NONE) {
          files.deleteBefore(index, lastFullEpoch);
        }
        lastFullEpoch = epoch;
        keysAtLastFull = keys.size();
        keysWrittenSinceFull = 0;
      } else {
        keysWrittenSinceFull += written;
      }
    }

    /** Reads this partition as committed at {@code epoch}: the last full snapshot, then the changes after it. */
    private void restore(long epoch, boolean timerHolds) throws Exception {
      for (StateFiles.Snapshot snapshot : files.upTo(index, epoch)) {
        if (snapshot.full()) {
          lastFullEpoch = snapshot.epoch();
        }
        files.read(snapshot, in -> {
          int count = in.readInt();
          if (snapshot.full()) {
            keysAtLastFull = count;
          } else {
            keysWrittenSinceFull += count;
          }
          for (int i = 0; i < count; i++) {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            ByteBuffer key = ByteBuffer.wrap(bytes);
            if (in.readBoolean()) {
              Object decoded = CoderUtils.decodeFromByteArray(codec.keyCoder(), bytes);
              keys.put(key, KeyState.readFrom(in, decoded, codec));
            } else {
              keys.remove(key);
            }
          }
        });
      }
      for (Map.Entry<ByteBuffer, KeyState> e : keys.entrySet()) {
        index(e.getKey(), e.getValue(), timerHolds);
      }
      version = epoch;
    }
  }

  /**
   * Opens partition {@code partition} of {@code step} for {@code epoch}: at epoch - 1, from this
   * JVM's memory or, with a checkpoint dir, read back from there.
   */
  static Partition open(
      String runId, String step, int partition, long epoch, Codec codec, @Nullable StateFiles files, boolean timerHolds) {
    return open(runId, step, partition, epoch, epoch - 1, codec, files, timerHolds);
  }

  /**
   * Opens partition {@code partition} of {@code step} for {@code epoch} at {@code previous}, the
   * last epoch the step ran in (a step with nothing due skips epochs, see {@link
   * KeyedShuffle.LastRun}), from this JVM's memory or, with a checkpoint dir, read back from there.
   */
  static Partition open(
      String runId,
      String step,
      int partition,
      long epoch,
      long previous,
      Codec codec,
      @Nullable StateFiles files,
      boolean timerHolds) {
    String name = runId + '\u0000' + step + '\u0000' + partition;
    Partition p = PARTITIONS.computeIfAbsent(name, k -> new Partition(partition, codec, files));
    synchronized (p) {
      if (files != null && (p.open || p.version != previous)) {
        Partition restored = new Partition(partition, codec, files);
        try {
          restored.restore(previous, timerHolds);
        } catch (Exception e) {
          throw new IllegalStateException(
              "Step '" + step + "', partition " + partition + ": could not read its state at epoch " + previous
                  + " from the checkpoint dir " + files.dir(), e);
        }
        PARTITIONS.put(name, restored);
        restored.open = true;
        return restored;
      }
      if (p.open) {
        throw new IllegalStateException(
            "Step '" + step + "', partition " + partition + ": an earlier attempt of this epoch's task "
                + "failed after changing its streaming state, which cannot be restored without a "
                + "checkpoint (--checkpointDir); the epoch cannot be retried");
      }
      if (p.version != previous) {
        throw new IllegalStateException(
            "Step '" + step + "', partition " + partition + ": state is at epoch " + p.version
                + " on this executor, but epoch " + epoch + " needs epoch " + previous
                + "; without a checkpoint dir (--checkpointDir) streaming state lives in the executor "
                + "that ran the partition before, so it must run there again (one executor, e.g. local mode)");
      }
      p.open = true;
    }
    return p;
  }

  /** Commits the partition at {@code epoch}, writing what changed to the checkpoint dir if there is one. */
  static void commit(Partition p, long epoch) throws IOException {
    synchronized (p) {
      p.checkpoint(epoch);
      p.version = epoch;
      p.open = false;
    }
  }

  /** Forgets the state of every step of {@code runId} held in this JVM. */
  static void dropRun(String runId) {
    PARTITIONS.keySet().removeIf(k -> k.startsWith(runId + '\u0000'));
  }

  /**
   * The keys to visit this epoch: those given (with elements), then those with a timer due at
   * the new input watermark or, if the policies let processing-time timers fire, at the epoch's
   * processing time (all of them at the end of input under FIRE_AND_QUIESCE).
   */
  static List<ByteBuffer> toVisit(
      Partition p, Iterable<ByteBuffer> withElements, TimePolicies policies, Instant inputNow, Instant processingTime) {
    Instant clock = null;
    if (policies.processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW) {
      boolean endOfInput = !inputNow.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      clock =
          endOfInput && policies.processingTimeEndOfInput() == TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE
              ? BoundedWindow.TIMESTAMP_MAX_VALUE
              : processingTime;
    }
    Set<ByteBuffer> visit = new LinkedHashSet<>();
    for (ByteBuffer key : withElements) {
      visit.add(key);
    }
    visit.addAll(p.due(inputNow, clock));
    return new ArrayList<>(visit);
  }
}
