package dev.weir.translation.streaming.state;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The reads and writes that a partition's cells and indexes make on its RocksDB instance, with
 * RocksDB's checked exceptions turned into {@link IllegalStateException}s naming the partition.
 * Writes skip RocksDB's write-ahead log: an epoch is made durable by the partition's checkpoint
 * at commit, and an epoch cut short is undone by going back to the last one.
 */
final class RocksDbStore {
  /** A record: its key and value. */
  record Record(byte[] key, byte[] value) {}

  private final RocksDB db;
  private final WriteOptions writeOptions;
  private final String name;
  private long nextSeq;

  RocksDbStore(RocksDB db, WriteOptions writeOptions, String name) {
    this.db = db;
    this.writeOptions = writeOptions;
    this.name = name;
  }

  RocksDB db() {
    return db;
  }

  private IllegalStateException failed(String what, RocksDBException e) {
    return new IllegalStateException("RocksDB state of " + name + ": could not " + what, e);
  }

  byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw failed("read", e);
    }
  }

  void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw failed("write", e);
    }
  }

  void delete(byte[] key) {
    try {
      db.delete(writeOptions, key);
    } catch (RocksDBException e) {
      throw failed("delete", e);
    }
  }

  void write(WriteBatch batch) {
    try {
      db.write(writeOptions, batch);
    } catch (RocksDBException e) {
      throw failed("write", e);
    }
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
  }

  /** The keys of index {@code index} (see {@link RocksDbKeys}) whose time is accepted, in time order, up to the first refused. */
  List<byte[]> indexWhile(byte index, LongPredicate accept) {
    List<byte[]> entries = new ArrayList<>();
    byte[] prefix = {index};
    try (RocksIterator it = db.newIterator()) {
      for (it.seek(prefix); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (key[0] != index || !accept.test(RocksDbKeys.indexTime(key))) {
          break;
        }
        entries.add(key);
      }
      check(it);
    }
    return entries;
  }

  /** The first key that starts with {@code prefix}, or null. */
  byte[] first(byte[] prefix) {
    try (RocksIterator it = db.newIterator()) {
      it.seek(prefix);
      if (it.isValid() && RocksDbKeys.startsWith(it.key(), prefix)) {
        return it.key();
      }
      check(it);
      return null;
    }
  }

  /** Deletes the records that {@link #scan(byte[], byte[], byte[])} would return. */
  void deleteAll(byte[] prefix, byte[] from, byte[] to) {
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
    } catch (RocksDBException e) {
      throw failed("delete", e);
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
}
