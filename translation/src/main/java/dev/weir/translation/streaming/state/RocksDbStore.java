package dev.weir.translation.streaming.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.rocksdb.Checkpoint;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One open RocksDB instance of a partition and the reads and writes its cells and indexes make,
 * with RocksDB's checked exceptions turned into {@link IllegalStateException}s naming the
 * partition. Writes skip RocksDB's write-ahead log: an epoch is made durable by the partition's
 * checkpoint at commit, and an epoch cut short is undone by going back to the last one.
 *
 * <p>Every call holds a read lock and {@link #close} the write lock: an instance closed while a
 * task thread still uses it (a run ending under a task Spark has not stopped yet, an attempt
 * taken over) makes that thread fail with an exception, where a closed RocksDB handle would crash
 * the JVM.
 */
final class RocksDbStore implements AutoCloseable {
  /** A record: its key and value. */
  record Record(byte[] key, byte[] value) {}

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Options options;
  private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
  private final RocksDB db;
  private final String name;
  /** Iterators over a snapshot, open until {@link #endReads}. */
  private final List<AutoCloseable> reads = new ArrayList<>();
  private long nextSeq;
  private boolean closed;

  private RocksDbStore(Options options, RocksDB db, String name) {
    this.options = options;
    this.db = db;
    this.name = name;
  }

  /** Opens (or creates) the instance in {@code dir}. */
  static RocksDbStore open(Path dir, RocksDbResources resources, String name) throws IOException {
    Options options = resources.options();
    try {
      return new RocksDbStore(options, RocksDB.open(options, dir.toString()), name);
    } catch (RocksDBException e) {
      options.close();
      throw new IOException("Could not open the RocksDB state of " + name + " in " + dir, e);
    }
  }

  private IllegalStateException failed(String what, RocksDBException e) {
    return new IllegalStateException("RocksDB state of " + name + ": could not " + what, e);
  }

  /** Runs {@code call} under the read lock, refusing if the instance is closed. */
  private <T> T locked(Supplier<T> call) {
    lock.readLock().lock();
    try {
      if (closed) {
        throw new IllegalStateException(
            "RocksDB state of " + name + " was closed (the run ended, or another attempt of the task took it over)");
      }
      return call.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  byte[] get(byte[] key) {
    return locked(() -> {
      try {
        return db.get(key);
      } catch (RocksDBException e) {
        throw failed("read", e);
      }
    });
  }

  void put(byte[] key, byte[] value) {
    locked(() -> {
      try {
        db.put(writeOptions, key, value);
        return null;
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
    });
  }

  void delete(byte[] key) {
    locked(() -> {
      try {
        db.delete(writeOptions, key);
        return null;
      } catch (RocksDBException e) {
        throw failed("delete", e);
      }
    });
  }

  void write(WriteBatch batch) {
    locked(() -> {
      try {
        db.write(writeOptions, batch);
        return null;
      } catch (RocksDBException e) {
        throw failed("write", e);
      }
    });
  }

  /** Every record whose key starts with {@code prefix}, in key order. */
  List<Record> scan(byte[] prefix) {
    return scan(prefix, null, null);
  }

  /**
   * The records whose key starts with {@code prefix}, from {@code from} (inclusive; null: the
   * first) to {@code to} (exclusive; null: the last), in key order.
   */
  List<Record> scan(byte[] prefix, byte[] from, byte[] to) {
    return locked(() -> {
      List<Record> records = new ArrayList<>();
      try (RocksIterator it = db.newIterator()) {
        for (it.seek(from == null ? prefix : from); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!RocksDbKeys.startsWith(key, prefix) || (to != null && java.util.Arrays.compareUnsigned(key, to) >= 0)) {
            break;
          }
          records.add(new Record(key, it.value()));
        }
        check(it);
      }
      return records;
    });
  }

  /**
   * The entries of index {@code index} (see {@link RocksDbKeys}) whose time is accepted, in time
   * order, up to the first refused, read as they are asked for from a snapshot of the instance
   * as it is now (the epoch then changes the index as it goes). Open until {@link #endReads}.
   */
  Iterator<byte[]> indexWhile(byte index, LongPredicate accept) {
    return locked(() -> {
      Snapshot snapshot = db.getSnapshot();
      ReadOptions options = new ReadOptions().setSnapshot(snapshot);
      RocksIterator it = db.newIterator(options);
      reads.add(() -> {
        it.close();
        options.close();
        db.releaseSnapshot(snapshot);
      });
      it.seek(new byte[] {index});
      return new Iterator<byte[]>() {
        private byte[] next = advance(false);

        private byte[] advance(boolean step) {
          return locked(() -> {
            if (step) {
              it.next();
            }
            if (!it.isValid()) {
              check(it);
              return null;
            }
            byte[] key = it.key();
            return key[0] == index && accept.test(RocksDbKeys.indexTime(key)) ? key : null;
          });
        }

        @Override
        public boolean hasNext() {
          return next != null;
        }

        @Override
        public byte[] next() {
          if (next == null) {
            throw new NoSuchElementException();
          }
          byte[] current = next;
          next = advance(true);
          return current;
        }
      };
    });
  }

  /** Closes the snapshot reads of {@link #indexWhile}. */
  void endReads() {
    locked(() -> {
      closeReads();
      return null;
    });
  }

  private void closeReads() {
    for (AutoCloseable read : reads) {
      try {
        read.close();
      } catch (Exception e) {
        throw new IllegalStateException("RocksDB state of " + name + ": could not close a read", e);
      }
    }
    reads.clear();
  }

  /** The first key that starts with {@code prefix}, or null. */
  byte[] first(byte[] prefix) {
    return locked(() -> {
      try (RocksIterator it = db.newIterator()) {
        it.seek(prefix);
        if (it.isValid() && RocksDbKeys.startsWith(it.key(), prefix)) {
          return it.key();
        }
        check(it);
        return null;
      }
    });
  }

  /** Deletes the records that {@link #scan(byte[], byte[], byte[])} would return. */
  void deleteAll(byte[] prefix, byte[] from, byte[] to) {
    locked(() -> {
      try (RocksIterator it = db.newIterator();
          WriteBatch batch = new WriteBatch()) {
        for (it.seek(from == null ? prefix : from); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!RocksDbKeys.startsWith(key, prefix) || (to != null && java.util.Arrays.compareUnsigned(key, to) >= 0)) {
            break;
          }
          batch.delete(key);
        }
        check(it);
        if (batch.count() > 0) {
          db.write(writeOptions, batch);
        }
        return null;
      } catch (RocksDBException e) {
        throw failed("delete", e);
      }
    });
  }

  /** Flushes the memtable and writes a RocksDB checkpoint (hard links and copies) into {@code dir}, which must not exist. */
  void checkpoint(Path dir) throws IOException {
    try {
      locked(() -> {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
            Checkpoint checkpoint = Checkpoint.create(db)) {
          db.flush(flush);
          checkpoint.createCheckpoint(dir.toString());
          return null;
        } catch (RocksDBException e) {
          throw failed("checkpoint into " + dir, e);
        }
      });
    } catch (IllegalStateException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** A number never handed out before in this partition: the order of appended elements. */
  long nextSeq() {
    return nextSeq++;
  }

  long peekSeq() {
    return nextSeq;
  }

  void resetSeq(long next) {
    nextSeq = next;
  }

  private void check(RocksIterator it) {
    try {
      it.status();
    } catch (RocksDBException e) {
      throw failed("scan", e);
    }
  }

  boolean isClosed() {
    lock.readLock().lock();
    try {
      return closed;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Closes the instance once no call is running (its files stay); later calls fail. */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      closeReads();
      db.close();
      writeOptions.close();
      options.close();
    } finally {
      lock.writeLock().unlock();
    }
  }
}
