package dev.weir.translation.streaming.state;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.MultimapState;
import org.apache.beam.sdk.state.OrderedListState;
import org.apache.beam.sdk.state.ReadableState;
import org.apache.beam.sdk.state.ReadableStates;
import org.apache.beam.sdk.state.SetState;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * The collection cells of {@link RocksDbCells}: one record per element, written through. A read
 * returns the elements as they are when it is made (a list), as Beam's in-memory cells do.
 */
final class RocksDbCollections {
  private RocksDbCollections() {}

  /** What every collection cell shares: its records' prefix, its tag, clearing and emptiness. */
  private abstract static class Cell {
    final RocksDbKeyRecords store;
    final byte[] prefix;
    final String tag;

    Cell(RocksDbKeyRecords store, byte[] prefix, String tag) {
      this.store = store;
      this.prefix = prefix;
      this.tag = tag;
    }

    public void clear() {
      store.deleteAll(prefix, null, null);
    }

    public ReadableState<Boolean> isEmpty() {
      return RocksDbCells.lazily(() -> store.first(prefix) == null);
    }

    /** The bytes of a record's key after the cell's prefix. */
    byte[] suffix(byte[] key) {
      return Arrays.copyOfRange(key, prefix.length, key.length);
    }
  }

  /** Elements in the order they were added: a sequence number after the prefix. */
  static final class Bag<T> extends Cell implements BagState<T> {
    private final Coder<T> coder;

    Bag(RocksDbKeyRecords store, byte[] prefix, String tag, Coder<T> coder) {
      super(store, prefix, tag);
      this.coder = coder;
    }

    @Override
    public void add(T value) {
      store.put(RocksDbKeys.withLong(prefix, store.nextSeq()), RocksDbCells.encode(coder, value, tag));
    }

    @Override
    public Iterable<T> read() {
      List<T> out = new ArrayList<>();
      for (RocksDbStore.Record r : store.scan(prefix)) {
        out.add(RocksDbCells.decode(coder, r.value(), tag));
      }
      return out;
    }

    @Override
    public BagState<T> readLater() {
      return this;
    }
  }

  /** Elements by their encoding after the prefix, with no value. */
  static final class Set<T> extends Cell implements SetState<T> {
    private static final byte[] PRESENT = {};
    private final Coder<T> coder;

    Set(RocksDbKeyRecords store, byte[] prefix, String tag, Coder<T> coder) {
      super(store, prefix, tag);
      this.coder = coder;
    }

    private byte[] record(T element) {
      return RocksDbKeys.concat(prefix, RocksDbCells.encode(coder, element, tag));
    }

    @Override
    public void add(T value) {
      store.put(record(value), PRESENT);
    }

    @Override
    public ReadableState<Boolean> contains(T value) {
      byte[] record = record(value);
      return RocksDbCells.lazily(() -> store.get(record) != null);
    }

    @Override
    public ReadableState<Boolean> addIfAbsent(T value) {
      byte[] record = record(value);
      boolean absent = store.get(record) == null;
      if (absent) {
        store.put(record, PRESENT);
      }
      return ReadableStates.immediate(absent);
    }

    @Override
    public void remove(T value) {
      store.delete(record(value));
    }

    @Override
    public Iterable<T> read() {
      List<T> out = new ArrayList<>();
      for (RocksDbStore.Record r : store.scan(prefix)) {
        out.add(RocksDbCells.decode(coder, suffix(r.key()), tag));
      }
      return out;
    }

    @Override
    public SetState<T> readLater() {
      return this;
    }
  }

  /** Entries by their key's encoding after the prefix; the value (which may be null) as the record's value. */
  static final class Map<K, V> extends Cell implements MapState<K, V> {
    private final Coder<K> keyCoder;
    private final Coder<V> valueCoder;

    Map(RocksDbKeyRecords store, byte[] prefix, String tag, Coder<K> keyCoder, Coder<V> valueCoder) {
      super(store, prefix, tag);
      this.keyCoder = keyCoder;
      this.valueCoder = NullableCoder.of(valueCoder);
    }

    private byte[] record(K key) {
      return RocksDbKeys.concat(prefix, RocksDbCells.encode(keyCoder, key, tag));
    }

    private V value(byte[] bytes) {
      return bytes == null ? null : RocksDbCells.decode(valueCoder, bytes, tag);
    }

    @Override
    public void put(K key, V value) {
      store.put(record(key), RocksDbCells.encode(valueCoder, value, tag));
    }

    @Override
    public ReadableState<V> putIfAbsent(K key, V value) {
      return computeIfAbsent(key, k -> value);
    }

    /** Returns the value the key had before, null if none, as Beam's in-memory map does. */
    @Override
    public ReadableState<V> computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
      byte[] record = record(key);
      V existing = value(store.get(record));
      if (existing == null) {
        store.put(record, RocksDbCells.encode(valueCoder, mappingFunction.apply(key), tag));
      }
      return ReadableStates.immediate(existing);
    }

    @Override
    public void remove(K key) {
      store.delete(record(key));
    }

    @Override
    public ReadableState<V> get(K key) {
      return ReadableStates.immediate(value(store.get(record(key))));
    }

    @Override
    public ReadableState<V> getOrDefault(K key, V defaultValue) {
      byte[] bytes = store.get(record(key));
      return ReadableStates.immediate(bytes == null ? defaultValue : value(bytes));
    }

    private <T> List<T> each(Function<RocksDbStore.Record, T> f) {
      List<T> out = new ArrayList<>();
      for (RocksDbStore.Record r : store.scan(prefix)) {
        out.add(f.apply(r));
      }
      return out;
    }

    private K keyOf(RocksDbStore.Record r) {
      return RocksDbCells.decode(keyCoder, suffix(r.key()), tag);
    }

    @Override
    public ReadableState<Iterable<K>> keys() {
      return RocksDbCells.lazily(() -> each(this::keyOf));
    }

    @Override
    public ReadableState<Iterable<V>> values() {
      return RocksDbCells.lazily(() -> each(r -> value(r.value())));
    }

    @Override
    public ReadableState<Iterable<java.util.Map.Entry<K, V>>> entries() {
      return RocksDbCells.lazily(() -> each(r -> new AbstractMap.SimpleImmutableEntry<>(keyOf(r), value(r.value()))));
    }
  }

  /**
   * Values per key in the order they were put: the key's encoding with its length, then a
   * sequence number, after the prefix.
   */
  static final class Multimap<K, V> extends Cell implements MultimapState<K, V> {
    private final Coder<K> keyCoder;
    private final Coder<V> valueCoder;

    Multimap(RocksDbKeyRecords store, byte[] prefix, String tag, Coder<K> keyCoder, Coder<V> valueCoder) {
      super(store, prefix, tag);
      this.keyCoder = keyCoder;
      this.valueCoder = NullableCoder.of(valueCoder);
    }

    private byte[] keyPrefix(K key) {
      return RocksDbKeys.withSized(prefix, RocksDbCells.encode(keyCoder, key, tag));
    }

    /** The map key's encoding of a record. */
    private byte[] keyBytes(byte[] record) {
      int at = prefix.length;
      int length = ((record[at] & 0xff) << 24) | ((record[at + 1] & 0xff) << 16) | ((record[at + 2] & 0xff) << 8) | (record[at + 3] & 0xff);
      return Arrays.copyOfRange(record, at + 4, at + 4 + length);
    }

    @Override
    public void put(K key, V value) {
      store.put(RocksDbKeys.withLong(keyPrefix(key), store.nextSeq()), RocksDbCells.encode(valueCoder, value, tag));
    }

    @Override
    public ReadableState<Iterable<V>> get(K key) {
      byte[] keyPrefix = keyPrefix(key);
      return RocksDbCells.lazily(() -> {
        List<V> out = new ArrayList<>();
        for (RocksDbStore.Record r : store.scan(keyPrefix)) {
          out.add(RocksDbCells.decode(valueCoder, r.value(), tag));
        }
        return out;
      });
    }

    @Override
    public void remove(K key) {
      store.deleteAll(keyPrefix(key), null, null);
    }

    @Override
    public ReadableState<Iterable<K>> keys() {
      return RocksDbCells.lazily(() -> {
        List<K> out = new ArrayList<>();
        byte[] last = null;
        for (RocksDbStore.Record r : store.scan(prefix)) {
          byte[] k = keyBytes(r.key());
          if (last == null || !Arrays.equals(last, k)) {
            out.add(RocksDbCells.decode(keyCoder, k, tag));
            last = k;
          }
        }
        return out;
      });
    }

    @Override
    public ReadableState<Iterable<java.util.Map.Entry<K, V>>> entries() {
      return RocksDbCells.lazily(() -> {
        List<java.util.Map.Entry<K, V>> out = new ArrayList<>();
        for (RocksDbStore.Record r : store.scan(prefix)) {
          out.add(new AbstractMap.SimpleImmutableEntry<>(
              RocksDbCells.decode(keyCoder, keyBytes(r.key()), tag), RocksDbCells.decode(valueCoder, r.value(), tag)));
        }
        return out;
      });
    }

    @Override
    public ReadableState<Boolean> containsKey(K key) {
      byte[] keyPrefix = keyPrefix(key);
      return RocksDbCells.lazily(() -> store.first(keyPrefix) != null);
    }
  }

  /**
   * Elements in timestamp order, then in the order they were added: the timestamp and a sequence
   * number after the prefix, so that a range is one seek and a scan.
   */
  static final class OrderedList<T> extends Cell implements OrderedListState<T> {
    private final Coder<T> coder;

    OrderedList(RocksDbKeyRecords store, byte[] prefix, String tag, Coder<T> coder) {
      super(store, prefix, tag);
      this.coder = coder;
    }

    private byte[] at(Instant timestamp) {
      byte[] out = Arrays.copyOf(prefix, prefix.length + 8);
      RocksDbKeys.putTime(out, prefix.length, timestamp.getMillis());
      return out;
    }

    @Override
    public void add(TimestampedValue<T> value) {
      store.put(RocksDbKeys.withLong(at(value.getTimestamp()), store.nextSeq()), RocksDbCells.encode(coder, value.getValue(), tag));
    }

    @Override
    public Iterable<TimestampedValue<T>> read() {
      return readRange(new Instant(Long.MIN_VALUE), new Instant(Long.MAX_VALUE));
    }

    /** The elements with timestamps in [{@code minTimestamp}, {@code limitTimestamp}). */
    @Override
    public Iterable<TimestampedValue<T>> readRange(Instant minTimestamp, Instant limitTimestamp) {
      List<TimestampedValue<T>> out = new ArrayList<>();
      for (RocksDbStore.Record r : store.scan(prefix, at(minTimestamp), at(limitTimestamp))) {
        Instant timestamp = new Instant(RocksDbKeys.getTime(r.key(), prefix.length));
        out.add(TimestampedValue.of(RocksDbCells.decode(coder, r.value(), tag), timestamp));
      }
      return out;
    }

    @Override
    public void clearRange(Instant minTimestamp, Instant limitTimestamp) {
      store.deleteAll(prefix, at(minTimestamp), at(limitTimestamp));
    }

    @Override
    public OrderedListState<T> readRangeLater(Instant minTimestamp, Instant limitTimestamp) {
      return this;
    }

    @Override
    public OrderedListState<T> readLater() {
      return this;
    }
  }
}
