package dev.weir.translation.streaming.state;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.CombiningState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.MultimapState;
import org.apache.beam.sdk.state.OrderedListState;
import org.apache.beam.sdk.state.SetState;
import org.apache.beam.sdk.state.State;
import org.apache.beam.sdk.state.StateContext;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.CombineWithContext;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Beam's in-memory state cells, each with the means to write its contents as bytes and read them
 * back into a fresh cell: how keyed state goes to a checkpoint. A cell is bound through {@link
 * Binder}, which makes Beam's in-memory cell and notes the coders its spec declares.
 */
final class StateCells {
  private StateCells() {}

  /** Writes one kind of cell as bytes, and reads such bytes into a fresh cell of that kind. */
  interface Codec {
    byte kind();

    byte[] encode(State cell) throws IOException;

    void decodeInto(State fresh, byte[] bytes) throws IOException;
  }

  static final byte HOLD = 7;

  /** A bound cell and its codec. */
  record Cell(State state, Codec codec) {}

  /** The earliest time in a watermark hold's bytes, without binding its cell. */
  static Instant holdOf(byte[] bytes) throws IOException {
    return CoderUtils.decodeFromByteArray(NullableCoder.of(InstantCoder.of()), bytes);
  }

  /** Binds a cell as Beam's in-memory binder does, and says how to encode it. */
  static Cell bind(StateTag<? extends State> tag, StateContext<?> context) {
    Binder binder = new Binder(context);
    State state = tag.bind(binder);
    return new Cell(state, binder.codec);
  }

  private static final class Binder implements StateTag.StateBinder {
    private final InMemoryStateInternals.InMemoryStateBinder memory;
    Codec codec;

    Binder(StateContext<?> context) {
      this.memory = new InMemoryStateInternals.InMemoryStateBinder(context);
    }

    @Override
    public <T> ValueState<T> bindValue(StateTag<ValueState<T>> tag, Coder<T> coder) {
      Coder<T> nullable = NullableCoder.of(coder);
      codec = new Codec() {
        @Override public byte kind() { return 1; }

        @Override
        @SuppressWarnings("unchecked")
        public byte[] encode(State cell) throws IOException {
          return CoderUtils.encodeToByteArray(nullable, ((ValueState<T>) cell).read());
        }

        @Override
        @SuppressWarnings("unchecked")
        public void decodeInto(State fresh, byte[] bytes) throws IOException {
          ((ValueState<T>) fresh).write(CoderUtils.decodeFromByteArray(nullable, bytes));
        }
      };
      return memory.bindValue(tag, coder);
    }

    @Override
    public <T> BagState<T> bindBag(StateTag<BagState<T>> tag, Coder<T> elemCoder) {
      codec = new ElementsCodec<T>((byte) 2, elemCoder) {
        @Override
        @SuppressWarnings("unchecked")
        void add(State fresh, T element) {
          ((BagState<T>) fresh).add(element);
        }

        @Override
        @SuppressWarnings("unchecked")
        Iterable<T> read(State cell) {
          return ((BagState<T>) cell).read();
        }
      };
      return memory.bindBag(tag, elemCoder);
    }

    @Override
    public <T> SetState<T> bindSet(StateTag<SetState<T>> tag, Coder<T> elemCoder) {
      codec = new ElementsCodec<T>((byte) 3, elemCoder) {
        @Override
        @SuppressWarnings("unchecked")
        void add(State fresh, T element) {
          ((SetState<T>) fresh).add(element);
        }

        @Override
        @SuppressWarnings("unchecked")
        Iterable<T> read(State cell) {
          return ((SetState<T>) cell).read();
        }
      };
      return memory.bindSet(tag, elemCoder);
    }

    @Override
    public <K, V> MapState<K, V> bindMap(StateTag<MapState<K, V>> tag, Coder<K> keyCoder, Coder<V> valueCoder) {
      codec = new ElementsCodec<KV<K, V>>((byte) 4, KvCoder.of(keyCoder, NullableCoder.of(valueCoder))) {
        @Override
        @SuppressWarnings("unchecked")
        void add(State fresh, KV<K, V> entry) {
          ((MapState<K, V>) fresh).put(entry.getKey(), entry.getValue());
        }

        @Override
        @SuppressWarnings("unchecked")
        Iterable<KV<K, V>> read(State cell) {
          return entries(((MapState<K, V>) cell).entries().read());
        }
      };
      return memory.bindMap(tag, keyCoder, valueCoder);
    }

    @Override
    public <K, V> MultimapState<K, V> bindMultimap(
        StateTag<MultimapState<K, V>> tag, Coder<K> keyCoder, Coder<V> valueCoder) {
      codec = new ElementsCodec<KV<K, V>>((byte) 5, KvCoder.of(keyCoder, NullableCoder.of(valueCoder))) {
        @Override
        @SuppressWarnings("unchecked")
        void add(State fresh, KV<K, V> entry) {
          ((MultimapState<K, V>) fresh).put(entry.getKey(), entry.getValue());
        }

        @Override
        @SuppressWarnings("unchecked")
        Iterable<KV<K, V>> read(State cell) {
          return entries(((MultimapState<K, V>) cell).entries().read());
        }
      };
      return memory.bindMultimap(tag, keyCoder, valueCoder);
    }

    @Override
    public <T> OrderedListState<T> bindOrderedList(StateTag<OrderedListState<T>> tag, Coder<T> elemCoder) {
      codec = new ElementsCodec<TimestampedValue<T>>((byte) 6, TimestampedValue.TimestampedValueCoder.of(elemCoder)) {
        @Override
        @SuppressWarnings("unchecked")
        void add(State fresh, TimestampedValue<T> element) {
          ((OrderedListState<T>) fresh).add(element);
        }

        @Override
        @SuppressWarnings("unchecked")
        Iterable<TimestampedValue<T>> read(State cell) {
          return ((OrderedListState<T>) cell).read();
        }
      };
      return memory.bindOrderedList(tag, elemCoder);
    }

    @Override
    public <InputT, AccumT, OutputT> CombiningState<InputT, AccumT, OutputT> bindCombiningValue(
        StateTag<CombiningState<InputT, AccumT, OutputT>> tag,
        Coder<AccumT> accumCoder,
        Combine.CombineFn<InputT, AccumT, OutputT> combineFn) {
      codec = new AccumulatorCodec<>(accumCoder);
      return memory.bindCombiningValue(tag, accumCoder, combineFn);
    }

    @Override
    public <InputT, AccumT, OutputT> CombiningState<InputT, AccumT, OutputT> bindCombiningValueWithContext(
        StateTag<CombiningState<InputT, AccumT, OutputT>> tag,
        Coder<AccumT> accumCoder,
        CombineWithContext.CombineFnWithContext<InputT, AccumT, OutputT> combineFn) {
      codec = new AccumulatorCodec<>(accumCoder);
      return memory.bindCombiningValueWithContext(tag, accumCoder, combineFn);
    }

    @Override
    public WatermarkHoldState bindWatermark(StateTag<WatermarkHoldState> tag, TimestampCombiner combiner) {
      Coder<Instant> coder = NullableCoder.of(InstantCoder.of());
      codec = new Codec() {
        @Override public byte kind() { return HOLD; }

        @Override
        public byte[] encode(State cell) throws IOException {
          return CoderUtils.encodeToByteArray(coder, ((WatermarkHoldState) cell).read());
        }

        @Override
        public void decodeInto(State fresh, byte[] bytes) throws IOException {
          Instant hold = CoderUtils.decodeFromByteArray(coder, bytes);
          if (hold != null) {
            ((WatermarkHoldState) fresh).add(hold);
          }
        }
      };
      return memory.bindWatermark(tag, combiner);
    }
  }

  private static <K, V> Iterable<KV<K, V>> entries(Iterable<Map.Entry<K, V>> entries) {
    List<KV<K, V>> kvs = new ArrayList<>();
    for (Map.Entry<K, V> e : entries) {
      kvs.add(KV.of(e.getKey(), e.getValue()));
    }
    return kvs;
  }

  /** A cell that is a collection: its elements in order. */
  private abstract static class ElementsCodec<T> implements Codec {
    private final byte kind;
    private final Coder<Iterable<T>> coder;

    ElementsCodec(byte kind, Coder<T> elementCoder) {
      this.kind = kind;
      this.coder = IterableCoder.of(elementCoder);
    }

    abstract void add(State fresh, T element);

    abstract Iterable<T> read(State cell);

    @Override
    public byte kind() {
      return kind;
    }

    @Override
    public byte[] encode(State cell) throws IOException {
      return CoderUtils.encodeToByteArray(coder, read(cell));
    }

    @Override
    public void decodeInto(State fresh, byte[] bytes) throws IOException {
      for (T element : CoderUtils.decodeFromByteArray(coder, bytes)) {
        add(fresh, element);
      }
    }
  }

  /** A combining cell: its accumulator, merged into the fresh cell's empty one. */
  private static final class AccumulatorCodec<AccumT> implements Codec {
    private final Coder<AccumT> coder;

    AccumulatorCodec(Coder<AccumT> coder) {
      this.coder = coder;
    }

    @Override
    public byte kind() {
      return 8;
    }

    @Override
    @SuppressWarnings("unchecked")
    public byte[] encode(State cell) throws IOException {
      return CoderUtils.encodeToByteArray(coder, ((InMemoryStateInternals.InMemoryCombiningState<?, AccumT, ?>) cell).getAccum());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void decodeInto(State fresh, byte[] bytes) throws IOException {
      ((InMemoryStateInternals.InMemoryCombiningState<?, AccumT, ?>) fresh).addAccum(CoderUtils.decodeFromByteArray(coder, bytes));
    }
  }
}
