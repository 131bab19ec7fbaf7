package dev.weir.translation.batch;

import dev.weir.encoders.CoderBytes;
import dev.weir.translation.Rdds;
import dev.weir.translation.StepFailure;
import dev.weir.translation.runtime.CombineBuffer;
import dev.weir.translation.runtime.KeyWindowCombiner;
import dev.weir.translation.runtime.PartialCombine;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import scala.Tuple2;

/**
 * A non-merging {@code Combine.PerKey} on Spark partitions: each input partition adds its
 * elements into one Beam accumulator per (key, window) ({@link PartialCombine}), and sends each
 * accumulator once, Beam-encoded, through one shuffle; the
 * receiving partition sorts them by (key, window), so equal ones arrive together, and merges
 * them one (key, window) at a time. Memory stays bounded on both sides: the map is sent on
 * whenever it holds {@value #MAP_SIDE_ENTRIES} accumulators (by default), and the sort is
 * Spark's, which spills. The combining itself is {@link KeyWindowCombiner}'s.
 *
 * <p>Spark SQL's aggregation of a typed {@code Aggregator} does the same in principle, but it
 * falls back to sorting and re-encoding buffers past 128 keys a task, and it decodes each
 * element once more for the grouping key and once for the aggregation.
 */
final class KeyedCombine {
  /** The most accumulators a partition holds before it sends them on. */
  static final int MAP_SIDE_ENTRIES = PartialCombine.MAX_ENTRIES;

  private KeyedCombine() {}

  /** Everything the partitions need. */
  static final class Spec implements Serializable {
    final KeyWindowCombiner combiner;
    final Coder<Object> keyCoder;
    final Coder<BoundedWindow> windowCoder;
    final CoderBytes<CombineBuffer> buffers;
    final int mapSideEntries;

    Spec(KeyWindowCombiner combiner, Coder<Object> keyCoder, Coder<BoundedWindow> windowCoder,
        CombineBuffer.BufferCoder bufferCoder, int mapSideEntries) {
      this.combiner = combiner;
      this.keyCoder = keyCoder;
      this.windowCoder = windowCoder;
      this.buffers = CoderBytes.of(bufferCoder);
      this.mapSideEntries = mapSideEntries;
    }
  }

  static JavaRDD<WindowedValue<KV<Object, Object>>> combine(
      JavaRDD<WindowedValue<KV<Object, Object>>> input, Spec spec, int partitions) {
    JavaRDD<Tuple2<byte[], byte[]>> accumulators = Rdds.mapPartitions(input, new MapSide(spec), false);
    return Rdds.mapPartitions(HashSortedShuffle.sortedByKey(accumulators, new ByKeyBytes(partitions)), new ReduceSide(spec), false);
  }

  /** The partition of a (key, window)'s bytes: their hash modulo the partitions. */
  private static final class ByKeyBytes extends BytesPartitioner {
    ByKeyBytes(int partitions) {
      super(partitions);
    }

    @Override
    int partitionOf(byte[] keyBytes) {
      return Math.floorMod(Arrays.hashCode(keyBytes), numPartitions());
    }
  }

  /** A (key, window) as the bytes of their Beam encodings, as a map's key. */
  static final class KeyBytes {
    final byte[] bytes;
    private final int hash;

    KeyBytes(byte[] bytes) {
      this.bytes = bytes;
      this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof KeyBytes && Arrays.equals(bytes, ((KeyBytes) o).bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** Adds a partition's elements into accumulators ({@link PartialCombine}) and sends each on, encoded. */
  private static final class MapSide
      implements FlatMapFunction<Iterator<WindowedValue<KV<Object, Object>>>, Tuple2<byte[], byte[]>> {
    private final Spec spec;

    MapSide(Spec spec) {
      this.spec = spec;
    }

    @Override
    public Iterator<Tuple2<byte[], byte[]>> call(Iterator<WindowedValue<KV<Object, Object>>> input) {
      PartialCombine partial = new PartialCombine(input, spec.combiner, spec.keyCoder, spec.windowCoder, spec.mapSideEntries);
      /* The same (key, window) bytes as the GroupByKey translation groups by. */
      GroupByKeyTranslator.GroupingKey groupingKey = new GroupByKeyTranslator.GroupingKey(spec.keyCoder, spec.windowCoder);
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return partial.hasNext();
        }

        @Override
        public Tuple2<byte[], byte[]> next() {
          CombineBuffer buffer = partial.next();
          try {
            return new Tuple2<>(groupingKey.bytes(buffer.key, buffer.window), spec.buffers.encode(buffer));
          } catch (Exception ex) {
            throw new StepFailure(spec.combiner.stepName(), ex);
          }
        }
      };
    }
  }

  /** Merges the accumulators of each (key, window), which arrive one after the other, and extracts the outputs. */
  private static final class ReduceSide
      implements FlatMapFunction<Iterator<Tuple2<byte[], byte[]>>, WindowedValue<KV<Object, Object>>> {
    private final Spec spec;

    ReduceSide(Spec spec) {
      this.spec = spec;
    }

    @Override
    public Iterator<WindowedValue<KV<Object, Object>>> call(Iterator<Tuple2<byte[], byte[]>> sorted) {
      return new Iterator<>() {
        Tuple2<byte[], byte[]> pending = sorted.hasNext() ? sorted.next() : null;

        @Override
        public boolean hasNext() {
          return pending != null;
        }

        @Override
        public WindowedValue<KV<Object, Object>> next() {
          if (pending == null) {
            throw new NoSuchElementException();
          }
          byte[] key = pending._1();
          CombineBuffer merged = decode(pending._2());
          pending = null;
          while (sorted.hasNext()) {
            Tuple2<byte[], byte[]> next = sorted.next();
            if (!Arrays.equals(next._1(), key)) {
              pending = next;
              break;
            }
            merged = spec.combiner.merge(merged, decode(next._2()));
          }
          return spec.combiner.finish(merged);
        }

        private CombineBuffer decode(byte[] bytes) {
          try {
            return spec.buffers.decode(bytes);
          } catch (Exception e) {
            throw new StepFailure(spec.combiner.stepName(), e);
          }
        }
      };
    }
  }
}
