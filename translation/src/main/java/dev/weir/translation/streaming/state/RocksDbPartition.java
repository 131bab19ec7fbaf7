package dev.weir.translation.streaming.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * One partition of one keyed step in its own RocksDB instance on the executor's local disk
 * ({@link RocksDbKeys} gives the layout). Only the keys an epoch gets are in the heap, from {@link
 * #get} until {@link #touch} writes them back: the timers and hold indexes, like the cells, are
 * in RocksDB, so the heap an epoch needs follows the keys it touches, not the keys held.
 *
 * <p>Writes go to the instance as the epoch makes them. With a checkpoint dir, a commit flushes
 * the memtable, takes a RocksDB checkpoint (hard links) of the epoch in a local folder and uploads
 * the SST files the last commit lacked ({@link RocksDbCheckpoints}); a partition opened at another
 * version than the one it holds, or after an attempt failed midway, starts again from the local
 * checkpoint of that version or, if it is not here, from the checkpoint dir. So nothing an epoch
 * that was not committed wrote is ever seen again. Without a checkpoint dir nothing is flushed or
 * copied, and an attempt that failed midway cannot be undone: the partition refuses a retry, as
 * the in-memory backend does.
 */
final class RocksDbPartition implements KeyedPartition {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RocksDbPartition.class);
  private static final byte[] SEQ = RocksDbKeys.info("seq");
  private static final byte[] KEYS = RocksDbKeys.info("keys");

  private final String name;
  private final int index;
  private final Path home;
  private final KeyedStateStore.Codec codec;
  private final @Nullable RocksDbCheckpoints checkpoints;
  private final RocksDbResources resources;
  private final Map<ByteBuffer, KeyState> loaded = new HashMap<>();
  private @Nullable RocksDbStore store;
  private long keys;
  /** The epoch whose commit this instance holds. */
  long version;
  /** Whether an epoch is open: an attempt that fails leaves it so. */
  boolean open;
  /** The epoch open now, which {@link #touch} marks keys with. */
  private long epoch;
  /** The Spark task attempt that has the partition open, or {@link #NOBODY}. */
  long holder = NOBODY;

  static final long NOBODY = Long.MIN_VALUE;
  /** What the checkpoint dir holds of {@link #version}, or null (none yet, or no checkpoint dir). */
  private RocksDbCheckpoints.@Nullable Manifest committed;

  RocksDbPartition(
      String name, int index, Path home, KeyedStateStore.Codec codec, @Nullable StateFiles files, RocksDbResources resources) {
    this.name = name;
    this.index = index;
    this.home = home;
    this.codec = codec;
    this.checkpoints = files == null ? null : new RocksDbCheckpoints(files, index);
    this.resources = resources;
  }

  private Path dbDir() {
    return home.resolve("db");
  }

  private Path localCheckpoint(long epoch) {
    return home.resolve("checkpoint-" + epoch);
  }

  boolean isCreated() {
    return store != null && !store.isClosed();
  }

  /** Opens a new, empty instance (version 0: before the first epoch). */
  void create() throws IOException {
    deleteTree(home);
    Files.createDirectories(dbDir());
    openDb();
    version = 0;
  }

  /** Starts epoch {@code epoch}: the keys {@link #touch} writes are marked with it. */
  void begin(long epoch) {
    this.epoch = epoch;
    this.open = true;
  }

  private void openDb() throws IOException {
    store = RocksDbStore.open(dbDir(), resources, name);
    byte[] seq = store.get(SEQ);
    store.resetSeq(seq == null ? 0 : RocksDbKeys.getLong(seq, 0));
    byte[] count = store.get(KEYS);
    keys = count == null ? 0 : RocksDbKeys.getLong(count, 0);
  }

  /**
   * Puts the instance back at {@code epoch}: from the local checkpoint of that epoch if there is
   * one, else from the checkpoint dir; epoch 0 is the empty state.
   */
  void restore(long epoch) throws IOException {
    boolean localCopy = epoch > 0 && Files.isDirectory(localCheckpoint(epoch)) && holdsCommitOf(epoch);
    close();
    deleteTree(dbDir());
    Files.createDirectories(dbDir());
    Path local = localCheckpoint(epoch);
    if (localCopy) {
      copyCheckpoint(local, dbDir());
      LOG.info("RocksDB state of {}: back at epoch {} from its local checkpoint", name, epoch);
    } else if (epoch > 0) {
      committed = checkpoints.download(epoch, dbDir());
      LOG.info(
          "RocksDB state of {}: epoch {} read from the checkpoint dir {} ({} SST files, {} bytes)",
          name, epoch, checkpoints.describe(), committed.ssts().size(),
          committed.ssts().stream().mapToLong(RocksDbCheckpoints.SstFile::size).sum());
    } else {
      committed = null;
    }
    deleteLocalCheckpointsBut(epoch);
    loaded.clear();
    openDb();
    version = epoch;
    open = false;
  }

  /**
   * Whether the checkpoint dir holds, for {@code epoch}, what this instance committed: another
   * attempt of the task (a speculative one, one Spark thought lost) may have committed the
   * partition there since, and then this instance must not go on from its own.
   */
  boolean holdsCommitOf(long epoch) throws IOException {
    return checkpoints == null || epoch <= 0 || (committed != null && committed.epoch() == epoch && committed.id().equals(checkpoints.idOf(epoch)));
  }

  /** Writes the epoch's counters and, with a checkpoint dir, checkpoints and uploads the epoch. */
  void commit(long epoch) throws IOException {
    store.endReads();
    store.put(SEQ, RocksDbKeys.withLong(new byte[0], store.peekSeq()));
    store.put(KEYS, RocksDbKeys.withLong(new byte[0], keys));
    loaded.clear();
    if (checkpoints != null) {
      Path local = localCheckpoint(epoch);
      deleteTree(local);
      store.checkpoint(local);
      committed = checkpoints.upload(epoch, local, committed);
      deleteLocalCheckpointsBut(epoch);
    }
    version = epoch;
  }

  /**
   * Closes the instance once no call on it runs (its files stay); calls after this fail, naming
   * the partition, until it is created or restored again.
   */
  void close() {
    if (store != null) {
      store.close();
    }
  }

  /** Closes the instance and deletes its local files. */
  void drop() throws IOException {
    close();
    deleteTree(home);
  }

  @Override
  public @Nullable KeyState get(ByteBuffer key) throws Exception {
    KeyState keyState = loaded.get(key);
    if (keyState != null) {
      return keyState;
    }
    byte[] bytes = bytes(key);
    byte[] stored = RocksDbKeys.storedKey(bytes);
    byte[] meta = store.get(RocksDbKeys.meta(stored));
    if (meta == null) {
      return null;
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(meta));
    byte[] full = RocksDbKeys.readFullKey(in, stored);
    if (!java.util.Arrays.equals(full, bytes)) {
      throw new IllegalStateException(
          "RocksDB state of " + name + ": two keys have the same SHA-256 digest, which stands for keys longer than "
              + RocksDbKeys.MAX_INLINE_KEY + " bytes");
    }
    long indexedEvent = in.readLong();
    long indexedProcessing = in.readLong();
    long indexedHold = in.readLong();
    boolean hasState = in.readBoolean();
    long stateHold = in.readLong();
    long touchedIn = in.readLong();
    RocksDbCells cells =
        new RocksDbCells(CoderUtils.decodeFromByteArray(codec.keyCoder(), bytes), stored, store, hasState, stateHold);
    cells.persisted = true;
    keyState = new KeyState(cells);
    keyState.indexedEvent = indexedEvent;
    keyState.indexedProcessing = indexedProcessing;
    keyState.indexedHold = indexedHold;
    keyState.touchedIn = touchedIn;
    KeyedStateStore.readClocksAndTimers(keyState, in, codec);
    loaded.put(key, keyState);
    return keyState;
  }

  @Override
  public KeyState getOrCreate(ByteBuffer key, Object decodedKey, Instant inputWatermark) throws Exception {
    KeyState keyState = get(key);
    if (keyState == null) {
      keyState = new KeyState(new RocksDbCells(decodedKey, RocksDbKeys.storedKey(bytes(key)), store));
      keyState.timers.advanceInputWatermark(inputWatermark);
      loaded.put(key, keyState);
    }
    return keyState;
  }

  @Override
  public Iterator<ByteBuffer> due(Instant watermark, @Nullable Instant clock) {
    long upTo = watermark.getMillis();
    Iterator<byte[]> event = store.indexWhile(RocksDbKeys.EVENT_TIMERS, t -> t <= upTo);
    Iterator<byte[]> processing =
        clock == null ? java.util.Collections.emptyIterator() : store.indexWhile(RocksDbKeys.PROCESSING_TIMERS, t -> t <= clock.getMillis());
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return event.hasNext() || processing.hasNext();
      }

      @Override
      public ByteBuffer next() {
        byte[] entry = event.hasNext() ? event.next() : processing.next();
        try {
          return fullKey(RocksDbKeys.indexKey(entry));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
  }

  @Override
  public boolean touchedThisEpoch(KeyState key) {
    return key.touchedIn == epoch;
  }

  /** A key's Beam encoding from its stored form: inline, or in its meta record. */
  private ByteBuffer fullKey(byte[] stored) throws IOException {
    if (!RocksDbKeys.isDigest(stored)) {
      return ByteBuffer.wrap(RocksDbKeys.inlineKey(stored));
    }
    byte[] meta = store.get(RocksDbKeys.meta(stored));
    if (meta == null) {
      throw new IllegalStateException("RocksDB state of " + name + ": an index entry names a key that has no state");
    }
    return ByteBuffer.wrap(RocksDbKeys.readFullKey(new DataInputStream(new ByteArrayInputStream(meta)), stored));
  }

  @Override
  public void touch(ByteBuffer key, KeyState keyState, boolean timerHolds, boolean processingTimersEmit) throws Exception {
    RocksDbCells cells = (RocksDbCells) keyState.state;
    boolean cellsEmpty = cells.isEmpty();
    Instant cellsHold = cellsEmpty ? null : cells.earliestHold();
    byte[] bytes = RocksDbKeys.storedKey(bytes(key));
    keyState.touchedIn = epoch;
    try (WriteBatch batch = new WriteBatch()) {
      unindex(batch, RocksDbKeys.EVENT_TIMERS, keyState.indexedEvent, bytes);
      unindex(batch, RocksDbKeys.PROCESSING_TIMERS, keyState.indexedProcessing, bytes);
      unindex(batch, RocksDbKeys.HOLDS, keyState.indexedHold, bytes);
      if (keyState.isEmpty(processingTimersEmit, cellsEmpty)) {
        batch.delete(RocksDbKeys.meta(bytes));
        if (cells.persisted) {
          keys--;
        }
        cells.persisted = false;
        keyState.indexedEvent = KeyState.NONE;
        keyState.indexedProcessing = KeyState.NONE;
        keyState.indexedHold = KeyState.NONE;
      } else {
        keyState.indexedEvent = keyState.nextEventTimer();
        keyState.indexedProcessing = keyState.nextProcessingTimer();
        Instant hold = keyState.earliestHold(timerHolds, cellsHold);
        keyState.indexedHold = hold == null ? KeyState.NONE : hold.getMillis();
        index(batch, RocksDbKeys.EVENT_TIMERS, keyState.indexedEvent, bytes);
        index(batch, RocksDbKeys.PROCESSING_TIMERS, keyState.indexedProcessing, bytes);
        index(batch, RocksDbKeys.HOLDS, keyState.indexedHold, bytes);
        batch.put(RocksDbKeys.meta(bytes), meta(key, bytes, keyState, !cellsEmpty, cellsHold));
        if (!cells.persisted) {
          keys++;
        }
        cells.persisted = true;
      }
      store.write(batch);
    }
    loaded.remove(key);
  }

  private byte[] meta(ByteBuffer key, byte[] stored, KeyState keyState, boolean hasState, @Nullable Instant stateHold)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    DataOutputStream out = new DataOutputStream(bytes);
    if (RocksDbKeys.isDigest(stored)) {
      byte[] full = bytes(key);
      out.writeInt(full.length);
      out.write(full);
    }
    out.writeLong(keyState.indexedEvent);
    out.writeLong(keyState.indexedProcessing);
    out.writeLong(keyState.indexedHold);
    out.writeBoolean(hasState);
    out.writeLong(stateHold == null ? KeyState.NONE : stateHold.getMillis());
    out.writeLong(keyState.touchedIn);
    KeyedStateStore.writeClocksAndTimers(keyState, out, codec);
    out.flush();
    return bytes.toByteArray();
  }

  private static void unindex(WriteBatch batch, byte index, long time, byte[] key) throws RocksDBException {
    if (time != KeyState.NONE) {
      batch.delete(RocksDbKeys.indexEntry(index, time, key));
    }
  }

  private static void index(WriteBatch batch, byte index, long time, byte[] key) throws RocksDBException {
    if (time != KeyState.NONE) {
      batch.put(RocksDbKeys.indexEntry(index, time, key), new byte[0]);
    }
  }

  private long first(byte index, long none) {
    byte[] entry = store.first(new byte[] {index});
    return entry == null ? none : RocksDbKeys.indexTime(entry);
  }

  @Override
  public long earliestHold() {
    return first(RocksDbKeys.HOLDS, BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis());
  }

  @Override
  public long nextEventTimer() {
    return first(RocksDbKeys.EVENT_TIMERS, Long.MAX_VALUE);
  }

  @Override
  public long nextProcessingTimer() {
    return first(RocksDbKeys.PROCESSING_TIMERS, Long.MAX_VALUE);
  }

  @Override
  public long size() {
    return keys;
  }

  private static byte[] bytes(ByteBuffer key) {
    if (key.hasArray() && key.arrayOffset() == 0 && key.position() == 0 && key.remaining() == key.array().length) {
      return key.array();
    }
    byte[] bytes = new byte[key.remaining()];
    key.duplicate().get(bytes);
    return bytes;
  }

  /** A copy of a RocksDB checkpoint that RocksDB may then change: SST files linked (never changed), the rest copied. */
  private static void copyCheckpoint(Path from, Path to) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(from)) {
      for (Path file : files) {
        Path target = to.resolve(file.getFileName());
        if (file.getFileName().toString().endsWith(".sst")) {
          Files.createLink(target, file);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  private void deleteLocalCheckpointsBut(long epoch) throws IOException {
    if (!Files.isDirectory(home)) {
      return;
    }
    String keep = localCheckpoint(epoch).getFileName().toString();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(home, "checkpoint-*")) {
      for (Path dir : dirs) {
        if (!dir.getFileName().toString().equals(keep)) {
          deleteTree(dir);
        }
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
