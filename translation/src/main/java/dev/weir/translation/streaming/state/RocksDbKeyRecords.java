package dev.weir.translation.streaming.state;

import java.util.List;

/**
 * One key's view of its partition's store, for its cells: it knows when the key has no record at
 * all (a new key, or one with timers only, until something is written), so that a read then costs
 * no RocksDB lookup, and it notes what the epoch did to the key's records, so that whether the
 * key is left empty, and its earliest hold, are known without a scan unless a record went.
 */
final class RocksDbKeyRecords {
  private final RocksDbStore store;
  private boolean none;
  /** A record was written since the key was loaded. */
  boolean written;
  /** A record may have been deleted since the key was loaded. */
  boolean deleted;
  /** A watermark hold changed since the key was loaded. */
  boolean holdsChanged;

  RocksDbKeyRecords(RocksDbStore store, boolean hasRecords) {
    this.store = store;
    this.none = !hasRecords;
  }

  byte[] get(byte[] key) {
    return none ? null : store.get(key);
  }

  void put(byte[] key, byte[] value) {
    none = false;
    written = true;
    store.put(key, value);
  }

  void delete(byte[] key) {
    deleted = true;
    if (!none) {
      store.delete(key);
    }
  }

  List<RocksDbStore.Record> scan(byte[] prefix) {
    return none ? List.of() : store.scan(prefix);
  }

  List<RocksDbStore.Record> scan(byte[] prefix, byte[] from, byte[] to) {
    return none ? List.of() : store.scan(prefix, from, to);
  }

  byte[] first(byte[] prefix) {
    return none ? null : store.first(prefix);
  }

  void deleteAll(byte[] prefix, byte[] from, byte[] to) {
    deleted = true;
    if (!none) {
      store.deleteAll(prefix, from, to);
    }
  }

  long nextSeq() {
    return store.nextSeq();
  }
}
