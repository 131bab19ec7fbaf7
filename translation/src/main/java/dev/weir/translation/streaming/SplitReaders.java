package dev.weir.translation.streaming;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open readers of unbounded source splits in this executor JVM, per (run, step, split): a
 * split's reader stays open from one epoch to the next, so a source whose records arrive over
 * time (a Kafka consumer, a queue) keeps its connection, its buffers and its position, as in
 * Flink or Beam's classic Spark runner. The driver schedules a split back onto the executor that
 * read it last (Spark's preferred locations), where its reader waits.
 *
 * <p>A reader is used only if it stopped exactly after the epoch whose checkpoint mark the driver
 * holds for the split; otherwise (a first read, a retried task, another executor, a restarted
 * pipeline, an epoch that failed) it is closed and a new one starts from that mark, so that
 * nothing is read twice or skipped. The live marks a reader gave are kept with it, since some
 * sources can only finalize through the reader that made them (KafkaIO commits offsets through
 * its consumer); they are finalized here, in the split's next task, once their epoch is
 * committed.
 *
 * <p>Owner: the run. {@link #closeRun} closes a run's readers when it ends; a reader left idle for
 * {@link #IDLE_EVICTION_MILLIS} (its driver died, say) is closed by the next lease in this JVM.
 */
final class SplitReaders {
  private static final Logger LOG = LoggerFactory.getLogger(SplitReaders.class);
  private static final Map<String, Entry> READERS = new ConcurrentHashMap<>();
  static final long IDLE_EVICTION_MILLIS = 10 * 60_000;

  private SplitReaders() {}

  /** A split's reader and where it stands. */
  static final class Entry {
    final String runId;
    final UnboundedSource.UnboundedReader<Object> reader;
    /** The last epoch this reader read to the end of, or -1 before its first. */
    long epoch;
    /** Whether {@link UnboundedSource.UnboundedReader#start} was called. */
    boolean started;
    /** Whether a task is reading now (a second lease while one is out means a retry). */
    boolean leased;
    long lastUsedMillis;
    /** The marks this reader gave and that are not finalized yet, oldest first. */
    final Deque<PendingMark> pending = new ArrayDeque<>();

    Entry(String runId, UnboundedSource.UnboundedReader<Object> reader, long epoch) {
      this.runId = runId;
      this.reader = reader;
      this.epoch = epoch;
    }
  }

  /** A mark and the epoch it ends. */
  record PendingMark(long epoch, UnboundedSource.CheckpointMark mark) {}

  private static String key(String runId, String step, int split) {
    return runId + '\u0000' + step + '\u0000' + split;
  }

  /**
   * The reader of {@code split} positioned right after epoch {@code after}, whose mark is {@code
   * mark} (null: the split's start): the open one if it stands exactly there, else a new one from
   * the mark. The caller reads, then calls {@link #release}.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Entry lease(
      String runId,
      String step,
      int split,
      UnboundedSource<Object, ?> source,
      SerializablePipelineOptions options,
      long after,
      byte @Nullable [] mark)
      throws IOException {
    evictIdle();
    String key = key(runId, step, split);
    Entry open = READERS.get(key);
    if (open != null) {
      synchronized (open) {
        if (!open.leased && open.epoch == after) {
          open.leased = true;
          open.lastUsedMillis = System.currentTimeMillis();
          return open;
        }
      }
      LOG.info(
          "Step '{}', split {}: its reader stands after epoch {}{}, but epoch {} is next; reading again from the mark of epoch {}",
          step, split, open.epoch, open.leased ? " (a task still holds it)" : "", after + 1, after);
      close(key, open);
    }
    UnboundedSource.CheckpointMark decoded =
        mark == null ? null : (UnboundedSource.CheckpointMark) CoderUtils.decodeFromByteArray((Coder) source.getCheckpointMarkCoder(), mark);
    Entry created =
        new Entry(runId, ((UnboundedSource) source).createReader(options.get(), decoded), after);
    // A mark decoded from a commit is not finalized: Beam lets a runner skip a finalization after
    // a failure (the reader's next mark covers it), and some marks finalize only through the
    // reader that made them (KafkaIO's decoded mark has no consumer to commit with).
    created.leased = true;
    created.lastUsedMillis = System.currentTimeMillis();
    READERS.put(key, created);
    return created;
  }

  /**
   * Finalizes the entry's marks of epochs up to {@code committed}, oldest first: their epochs are
   * committed, so the source may forget what they cover.
   */
  static void finalizeThrough(Entry entry, long committed) throws IOException {
    while (!entry.pending.isEmpty() && entry.pending.peekFirst().epoch() <= committed) {
      entry.pending.pollFirst().mark().finalizeCheckpoint();
    }
  }

  /** Ends a lease: the reader read epoch {@code epoch} to its end and gave {@code mark}. */
  static void release(Entry entry, long epoch, UnboundedSource.CheckpointMark mark) {
    synchronized (entry) {
      entry.epoch = epoch;
      entry.pending.add(new PendingMark(epoch, mark));
      entry.leased = false;
      entry.lastUsedMillis = System.currentTimeMillis();
    }
  }

  /** Closes the reader of a lease that failed: the next task starts again from the mark. */
  static void discard(String runId, String step, int split, Entry entry) {
    close(key(runId, step, split), entry);
  }

  /** Closes the reader of a split that reached its end, once its last mark is finalized. */
  static void closeSplit(String runId, String step, int split) {
    Entry entry = READERS.get(key(runId, step, split));
    if (entry != null) {
      close(key(runId, step, split), entry);
    }
  }

  /**
   * Closes every reader of {@code runId} in this JVM, after finalizing the marks of epochs up to
   * {@code committed} (-1: none).
   */
  static void closeRun(String runId, long committed) {
    for (Map.Entry<String, Entry> e : READERS.entrySet()) {
      if (e.getValue().runId.equals(runId)) {
        try {
          finalizeThrough(e.getValue(), committed);
        } catch (IOException | RuntimeException ex) {
          LOG.warn("Finalizing a checkpoint mark of run {} failed", runId, ex);
        }
        close(e.getKey(), e.getValue());
      }
    }
  }

  /** How many readers this JVM holds open for {@code runId}. */
  static int openReaders(String runId) {
    int n = 0;
    for (Entry e : READERS.values()) {
      n += e.runId.equals(runId) ? 1 : 0;
    }
    return n;
  }

  private static void evictIdle() {
    long now = System.currentTimeMillis();
    for (Map.Entry<String, Entry> e : READERS.entrySet()) {
      Entry entry = e.getValue();
      if (!entry.leased && now - entry.lastUsedMillis > IDLE_EVICTION_MILLIS) {
        LOG.info("Closing a split reader of run {}, unused for {} ms", entry.runId, now - entry.lastUsedMillis);
        close(e.getKey(), entry);
      }
    }
  }

  private static void close(String key, Entry entry) {
    READERS.remove(key, entry);
    try {
      entry.reader.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Closing a split reader of run {} failed", entry.runId, e);
    }
  }
}
