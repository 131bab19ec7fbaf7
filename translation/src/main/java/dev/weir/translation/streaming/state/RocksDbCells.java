package dev.weir.translation.streaming.state;

import java.util.HashMap;
import java.util.Map;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.CombiningState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.MultimapState;
import org.apache.beam.sdk.state.OrderedListState;
import org.apache.beam.sdk.state.ReadableState;
import org.apache.beam.sdk.state.SetState;
import org.apache.beam.sdk.state.State;
import org.apache.beam.sdk.state.StateContext;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.CombineWithContext;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.CombineFnUtil;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One key's state cells in its partition's RocksDB instance ({@link RocksDbKeys} says where each
 * record goes), values in their Beam coders' bytes. Collections (bags, sets, maps, multimaps,
 * ordered lists) write through: an added element is one record, appended without reading or
 * rewriting the others, and a read scans the cell's records. Single values (values,
 * accumulators, watermark holds) are read once and written back when the key is {@link #flush
 * flushed}: a combining cell that adds every element of an epoch is encoded once per epoch.
 */
final class RocksDbCells implements KeyStateCells {
  private final Object key;
  private final byte[] keyBytes;
  private final RocksDbKeyRecords store;
  private final Map<String, State> cells = new HashMap<>();
  private final NamespaceKeyMemo namespaceKeys = new NamespaceKeyMemo();
  /** Whether the key has a meta record in the store (see {@link RocksDbPartition}). */
  boolean persisted;
  /** Whether the key had state when loaded, and its earliest hold then (or {@link KeyState#NONE}). */
  private final boolean hadState;
  private final long holdWhenLoaded;

  /** A new key, with no record. */
  RocksDbCells(Object key, byte[] keyBytes, RocksDbStore store) {
    this(key, keyBytes, store, false, KeyState.NONE);
  }

  /** A key loaded with what its meta record says of its state. */
  RocksDbCells(Object key, byte[] keyBytes, RocksDbStore store, boolean hadState, long holdWhenLoaded) {
    this.key = key;
    this.keyBytes = keyBytes;
    this.store = new RocksDbKeyRecords(store, hadState);
    this.hadState = hadState;
    this.holdWhenLoaded = holdWhenLoaded;
  }

  @Override
  public Object getKey() {
    return key;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends State> T state(StateNamespace namespace, StateTag<T> address, StateContext<?> c) {
    String ns = namespaceKeys.of(namespace);
    String id = ns + '\u0000' + address.getId();
    State cell = cells.get(id);
    if (cell == null) {
      cell = address.bind(new Binder(ns, address.getId(), c));
      cells.put(id, cell);
    }
    return (T) cell;
  }

  /** Writes back the single values changed since they were read. */
  void flush() {
    for (State cell : cells.values()) {
      if (cell instanceof Single<?> single) {
        single.flush();
      }
    }
  }

  @Override
  public @Nullable Instant earliestHold() {
    flush();
    if (!store.holdsChanged) {
      return holdWhenLoaded == KeyState.NONE ? null : new Instant(holdWhenLoaded);
    }
    Instant earliest = null;
    for (RocksDbStore.Record r : store.scan(RocksDbKeys.keyPrefix(RocksDbKeys.HOLD, keyBytes))) {
      Instant hold = new Instant(RocksDbKeys.getTime(r.value(), 0));
      if (earliest == null || hold.isBefore(earliest)) {
        earliest = hold;
      }
    }
    return earliest;
  }

  @Override
  public boolean isEmpty() {
    flush();
    if (!store.deleted) {
      // Nothing went: the key has what it had and what was written since.
      return !hadState && !store.written;
    }
    return store.first(RocksDbKeys.keyPrefix(RocksDbKeys.CELL, keyBytes)) == null
        && store.first(RocksDbKeys.keyPrefix(RocksDbKeys.HOLD, keyBytes)) == null;
  }

  /** A state that is read when asked, not before. */
  static <T> ReadableState<T> lazily(java.util.function.Supplier<T> read) {
    return new ReadableState<>() {
      @Override
      public T read() {
        return read.get();
      }

      @Override
      public ReadableState<T> readLater() {
        return this;
      }
    };
  }

  static <T> byte[] encode(Coder<T> coder, T value, String tag) {
    try {
      return CoderUtils.encodeToByteArray(coder, value);
    } catch (CoderException e) {
      throw new IllegalStateException("Could not encode a value of state '" + tag + "'", e);
    }
  }

  static <T> T decode(Coder<T> coder, byte[] bytes, String tag) {
    try {
      return CoderUtils.decodeFromByteArray(coder, bytes);
    } catch (CoderException e) {
      throw new IllegalStateException("Could not decode a value of state '" + tag + "'", e);
    }
  }

  private final class Binder implements StateTag.StateBinder {
    private final String namespace;
    private final String tag;
    private final StateContext<?> context;

    Binder(String namespace, String tag, StateContext<?> context) {
      this.namespace = namespace;
      this.tag = tag;
      this.context = context;
    }

    private byte[] prefix() {
      return RocksDbKeys.cellPrefix(RocksDbKeys.CELL, keyBytes, namespace, tag);
    }

    @Override
    public <T> ValueState<T> bindValue(StateTag<ValueState<T>> address, Coder<T> coder) {
      return new Value<>(store, prefix(), tag, coder);
    }

    @Override
    public <T> BagState<T> bindBag(StateTag<BagState<T>> address, Coder<T> elemCoder) {
      return new RocksDbCollections.Bag<>(store, prefix(), tag, elemCoder);
    }

    @Override
    public <T> SetState<T> bindSet(StateTag<SetState<T>> address, Coder<T> elemCoder) {
      return new RocksDbCollections.Set<>(store, prefix(), tag, elemCoder);
    }

    @Override
    public <K, V> MapState<K, V> bindMap(StateTag<MapState<K, V>> address, Coder<K> keyCoder, Coder<V> valueCoder) {
      return new RocksDbCollections.Map<>(store, prefix(), tag, keyCoder, valueCoder);
    }

    @Override
    public <K, V> MultimapState<K, V> bindMultimap(
        StateTag<MultimapState<K, V>> address, Coder<K> keyCoder, Coder<V> valueCoder) {
      return new RocksDbCollections.Multimap<>(store, prefix(), tag, keyCoder, valueCoder);
    }

    @Override
    public <T> OrderedListState<T> bindOrderedList(StateTag<OrderedListState<T>> address, Coder<T> elemCoder) {
      return new RocksDbCollections.OrderedList<>(store, prefix(), tag, elemCoder);
    }

    @Override
    public <InputT, AccumT, OutputT> CombiningState<InputT, AccumT, OutputT> bindCombiningValue(
        StateTag<CombiningState<InputT, AccumT, OutputT>> address,
        Coder<AccumT> accumCoder,
        Combine.CombineFn<InputT, AccumT, OutputT> combineFn) {
      return new Combining<>(store, prefix(), tag, accumCoder, combineFn);
    }

    @Override
    public <InputT, AccumT, OutputT> CombiningState<InputT, AccumT, OutputT> bindCombiningValueWithContext(
        StateTag<CombiningState<InputT, AccumT, OutputT>> address,
        Coder<AccumT> accumCoder,
        CombineWithContext.CombineFnWithContext<InputT, AccumT, OutputT> combineFn) {
      return new Combining<>(store, prefix(), tag, accumCoder, CombineFnUtil.bindContext(combineFn, context));
    }

    @Override
    public WatermarkHoldState bindWatermark(StateTag<WatermarkHoldState> address, TimestampCombiner combiner) {
      return new Hold(store, RocksDbKeys.cellPrefix(RocksDbKeys.HOLD, keyBytes, namespace, tag), combiner);
    }
  }

  /**
   * A cell of one record, read on first use and written back on {@link #flush} if changed; null
   * while the cell is cleared (no record).
   */
  private abstract static class Single<T> {
    final RocksDbKeyRecords store;
    final byte[] record;
    final String tag;
    private boolean read;
    private boolean dirty;
    private @Nullable T value;

    Single(RocksDbKeyRecords store, byte[] record, String tag) {
      this.store = store;
      this.record = record;
      this.tag = tag;
    }

    abstract T decode(byte[] bytes);

    abstract byte[] encode(T value);

    @Nullable
    T current() {
      if (!read) {
        byte[] bytes = store.get(record);
        value = bytes == null ? null : decode(bytes);
        read = true;
      }
      return value;
    }

    void set(@Nullable T value) {
      this.value = value;
      read = true;
      dirty = true;
      if (this instanceof Hold) {
        store.holdsChanged = true;
      }
    }

    void flush() {
      if (!dirty) {
        return;
      }
      if (value == null) {
        store.delete(record);
      } else {
        store.put(record, encode(value));
      }
      dirty = false;
    }
  }

  /** A value cell; a written null is kept (as Beam's in-memory cell keeps it), unlike a cleared cell. */
  private static final class Value<T> extends Single<Value.Box<T>> implements ValueState<T> {
    /** The value, which may be null. */
    record Box<T>(@Nullable T value) {}

    private final Coder<T> coder;

    Value(RocksDbKeyRecords store, byte[] record, String tag, Coder<T> coder) {
      super(store, record, tag);
      this.coder = org.apache.beam.sdk.coders.NullableCoder.of(coder);
    }

    @Override
    Box<T> decode(byte[] bytes) {
      return new Box<>(RocksDbCells.decode(coder, bytes, tag));
    }

    @Override
    byte[] encode(Box<T> box) {
      return RocksDbCells.encode(coder, box.value(), tag);
    }

    @Override
    public void write(T input) {
      set(new Box<>(input));
    }

    @Override
    public T read() {
      Box<T> box = current();
      return box == null ? null : box.value();
    }

    @Override
    public ValueState<T> readLater() {
      return this;
    }

    @Override
    public void clear() {
      set(null);
    }
  }

  /** A combining cell: its accumulator. */
  private static final class Combining<InputT, AccumT, OutputT> extends Single<AccumT>
      implements CombiningState<InputT, AccumT, OutputT> {
    private final Coder<AccumT> coder;
    private final Combine.CombineFn<InputT, AccumT, OutputT> fn;

    Combining(RocksDbKeyRecords store, byte[] record, String tag, Coder<AccumT> coder, Combine.CombineFn<InputT, AccumT, OutputT> fn) {
      super(store, record, tag);
      this.coder = coder;
      this.fn = fn;
    }

    @Override
    AccumT decode(byte[] bytes) {
      return RocksDbCells.decode(coder, bytes, tag);
    }

    @Override
    byte[] encode(AccumT value) {
      return RocksDbCells.encode(coder, value, tag);
    }

    @Override
    public OutputT read() {
      return fn.extractOutput(getAccum());
    }

    @Override
    public AccumT getAccum() {
      AccumT accum = current();
      return accum == null ? fn.createAccumulator() : accum;
    }

    @Override
    public void add(InputT input) {
      set(fn.addInput(getAccum(), input));
    }

    @Override
    public void addAccum(AccumT accum) {
      set(fn.mergeAccumulators(java.util.List.of(getAccum(), accum)));
    }

    @Override
    public AccumT mergeAccumulators(Iterable<AccumT> accumulators) {
      return fn.mergeAccumulators(accumulators);
    }

    @Override
    public ReadableState<Boolean> isEmpty() {
      return lazily(() -> current() == null);
    }

    @Override
    public CombiningState<InputT, AccumT, OutputT> readLater() {
      return this;
    }

    @Override
    public void clear() {
      set(null);
    }
  }

  /** A watermark hold: the combined time, kept apart so the key's holds are found alone. */
  private static final class Hold extends Single<Instant> implements WatermarkHoldState {
    private final TimestampCombiner combiner;

    Hold(RocksDbKeyRecords store, byte[] record, TimestampCombiner combiner) {
      super(store, record, "watermark hold");
      this.combiner = combiner;
    }

    @Override
    Instant decode(byte[] bytes) {
      return new Instant(RocksDbKeys.getTime(bytes, 0));
    }

    @Override
    byte[] encode(Instant value) {
      byte[] bytes = new byte[8];
      RocksDbKeys.putTime(bytes, 0, value.getMillis());
      return bytes;
    }

    @Override
    public TimestampCombiner getTimestampCombiner() {
      return combiner;
    }

    @Override
    public void add(Instant outputTime) {
      Instant current = current();
      set(current == null ? outputTime : combiner.combine(current, outputTime));
    }

    @Override
    public Instant read() {
      return current();
    }

    @Override
    public ReadableState<Boolean> isEmpty() {
      return lazily(() -> current() == null);
    }

    @Override
    public WatermarkHoldState readLater() {
      return this;
    }

    @Override
    public void clear() {
      set(null);
    }
  }
}
