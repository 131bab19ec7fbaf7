package dev.weir.translation.streaming.state;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * {@code --stateBackend=memory}: keyed state in the heap of the executor JVM that runs a
 * partition's tasks, per (run, step, partition), in Beam's in-memory cells. Each epoch the task of
 * a partition opens its state, which must be at the version of the last epoch the step ran in,
 * and commits it at the end.
 *
 * <p>With a checkpoint dir ({@link StateFiles}) the commit also writes the keys the epoch changed
 * (now and then all keys, see {@link Partition#checkpoint}), and a partition that is not here at
 * the version needed (a restarted pipeline, another executor, a retried task) is read back from
 * there. Without one, a task that fails midway leaves its partition marked, so that a retry fails
 * loudly instead of applying an epoch twice.
 */
public final class MemoryStateBackend implements StateBackend {
  public static final MemoryStateBackend INSTANCE = new MemoryStateBackend();
  private static final Map<String, Partition> PARTITIONS = new ConcurrentHashMap<>();
  private static final long NONE = KeyState.NONE;

  private MemoryStateBackend() {}

  @Override
  public boolean groupsKeys() {
    return false;
  }

  @Override
  public String name() {
    return "memory";
  }

  private Object readResolve() {
    return INSTANCE;
  }

  @Override
  public KeyedPartition open(
      String runId,
      String step,
      int partition,
      long epoch,
      long previous,
      KeyedStateStore.Codec codec,
      @Nullable StateFiles files,
      boolean timerHolds) {
    String name = KeyedStateStore.partitionName(runId, step, partition);
    Partition p = PARTITIONS.computeIfAbsent(name, k -> new Partition(partition, codec, files));
    synchronized (p) {
      if (files != null && (p.open || p.version != previous)) {
        Partition restored = new Partition(partition, codec, files);
        try {
          restored.restore(previous, timerHolds);
        } catch (Exception e) {
          throw KeyedStateStore.unreadable(step, partition, previous, files, e);
        }
        PARTITIONS.put(name, restored);
        restored.open = true;
        restored.epoch = epoch;
        return restored;
      }
      KeyedStateStore.checkOpenable(step, partition, epoch, previous, p.open, p.version);
      p.open = true;
      p.epoch = epoch;
    }
    return p;
  }

  @Override
  public void commit(KeyedPartition partition, long epoch) throws IOException {
    Partition p = (Partition) partition;
    synchronized (p) {
      p.checkpoint(epoch);
      p.version = epoch;
      p.open = false;
    }
  }

  @Override
  public void dropRun(String runId) {
    PARTITIONS.keySet().removeIf(k -> KeyedStateStore.ofRun(k, runId));
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
  static final class Partition implements KeyedPartition {
    private final Map<ByteBuffer, KeyState> keys = new HashMap<>();
    private final TreeSet<Entry> eventTimers = new TreeSet<>();
    private final TreeSet<Entry> processingTimers = new TreeSet<>();
    private final TreeSet<Entry> holds = new TreeSet<>();
    /** Keys changed (or dropped) since the last commit. */
    private final Set<ByteBuffer> dirty = new HashSet<>();
    private final KeyedStateStore.Codec codec;
    private final @Nullable StateFiles files;
    private final int index;
    private long version;
    private boolean open;
    /** The epoch open now. */
    private long epoch;
    /** Keys in the last full snapshot, and key records written since: see {@link #checkpoint}. */
    private long keysAtLastFull;
    private long keysWrittenSinceFull;
    private long lastFullEpoch = NONE;

    Partition(int index, KeyedStateStore.Codec codec, @Nullable StateFiles files) {
      this.index = index;
      this.codec = codec;
      this.files = files;
    }

    @Override
    @Nullable
    public KeyState get(ByteBuffer key) {
      return keys.get(key);
    }

    @Override
    public KeyState getOrCreate(ByteBuffer key, Object decodedKey, Instant inputWatermark) throws Exception {
      KeyState keyState = keys.get(key);
      if (keyState == null) {
        keyState = new KeyState(new KeyStateInternals(decodedKey));
        keyState.timers.advanceInputWatermark(inputWatermark);
        keys.put(key, keyState);
        dirty.add(key);
      }
      return keyState;
    }

    /** The keys due, copied: the heap holds every key anyway. */
    @Override
    public Iterator<ByteBuffer> due(Instant watermark, @Nullable Instant clock) {
      Set<ByteBuffer> due = new LinkedHashSet<>();
      collect(eventTimers, watermark.getMillis(), due);
      if (clock != null) {
        collect(processingTimers, clock.getMillis(), due);
      }
      return due.iterator();
    }

    @Override
    public boolean touchedThisEpoch(KeyState key) {
      return key.touchedIn == epoch;
    }

    private static void collect(TreeSet<Entry> index, long upTo, Set<ByteBuffer> into) {
      for (Entry e : index) {
        if (e.time() > upTo) {
          break;
        }
        into.add(e.key());
      }
    }

    /** Also marks the key for the next checkpoint. */
    @Override
    public void touch(ByteBuffer key, KeyState keyState, boolean timerHolds, boolean processingTimersEmit) {
      ((KeyStateInternals) keyState.state).compact();
      keyState.forgetNamespaceKeys();
      keyState.touchedIn = epoch;
      dirty.add(key);
      if (keyState.isEmpty(processingTimersEmit)) {
        reindex(key, keyState, NONE, NONE, NONE);
        keys.remove(key);
        return;
      }
      index(key, keyState, timerHolds);
    }

    /** Indexes the key under its next timers and hold as they stand now. */
    private void index(ByteBuffer key, KeyState keyState, boolean timerHolds) {
      Instant hold = keyState.earliestHold(timerHolds);
      reindex(key, keyState, keyState.nextEventTimer(), keyState.nextProcessingTimer(), hold == null ? NONE : hold.getMillis());
    }

    /**
     * Moves the key in each index whose time changed ({@link #NONE}: out of it). Most keys an
     * epoch touches keep their next timer (a window's end) from one epoch to the next: they are
     * left where they are.
     */
    private void reindex(ByteBuffer key, KeyState keyState, long event, long processing, long hold) {
      move(eventTimers, key, keyState.indexedEvent, event);
      move(processingTimers, key, keyState.indexedProcessing, processing);
      move(holds, key, keyState.indexedHold, hold);
      keyState.indexedEvent = event;
      keyState.indexedProcessing = processing;
      keyState.indexedHold = hold;
    }

    private static void move(TreeSet<Entry> index, ByteBuffer key, long from, long to) {
      if (from == to) {
        return;
      }
      if (from != NONE) {
        index.remove(new Entry(from, key));
      }
      if (to != NONE) {
        index.add(new Entry(to, key));
      }
    }

    @Override
    public long earliestHold() {
      return holds.isEmpty() ? BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis() : holds.first().time();
    }

    @Override
    public long nextEventTimer() {
      return eventTimers.isEmpty() ? Long.MAX_VALUE : eventTimers.first().time();
    }

    @Override
    public long nextProcessingTimer() {
      return processingTimers.isEmpty() ? Long.MAX_VALUE : processingTimers.first().time();
    }

    @Override
    public long size() {
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
            writeKey(keyState, out, codec);
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
              keys.put(key, readKey(in, decoded, codec));
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

  private static void writeKey(KeyState key, DataOutputStream out, KeyedStateStore.Codec codec) throws IOException {
    KeyedStateStore.writeClocksAndTimers(key, out, codec);
    ((KeyStateInternals) key.state).writeTo(out);
  }

  private static KeyState readKey(DataInputStream in, Object key, KeyedStateStore.Codec codec) throws Exception {
    KeyStateInternals cells = new KeyStateInternals(key);
    KeyState keyState = new KeyState(cells);
    KeyedStateStore.readClocksAndTimers(keyState, in, codec);
    cells.readFrom(in);
    return keyState;
  }
}
