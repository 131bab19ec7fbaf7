package dev.weir.translation.batch;

import dev.weir.translation.Rdds;
import dev.weir.translation.StepFailure;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.util.VarInt;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.rdd.ShuffledRDD;
import scala.Tuple2;
import scala.Tuple3;
import scala.math.Ordering;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Brings each key's elements together for a batch step that reads them key by key: one shuffle
 * by the hash of the Beam-encoded key ({@link GroupByKeyTranslator#hash64}), sorted within each
 * partition by that hash, then by arrival order (partition, position), so that a key's elements
 * keep the order they were produced in. Keys whose hashes collide share a run, which the reader
 * tells apart by the key bytes it gets with each element.
 *
 * <p>An RDD shuffle of byte arrays rather than a Dataset plan: the same few classes run it for
 * every pipeline, so they are compiled and hot after the first, where a Dataset plan generates
 * and compiles its own code for each new shape of stage (a tenth of Nexmark q3's time at
 * 1,000,000 events went to compiling the stages of its stateful join) and its fresh classes start
 * interpreted. Spark's sort spills to disk when it must.
 */
final class HashSortedShuffle {
  private HashSortedShuffle() {}

  /**
   * {@code input}, one element per window, keyed by {@code groupingKey}, in {@code partitions}
   * partitions, each sorted as above, as (key hash, key bytes, element); a coder's failure names
   * {@code stepName}.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static JavaRDD<Tuple3<Long, byte[], WindowedValue<Object>>> sorted(
      String stepName,
      JavaRDD<WindowedValue<Object>> input,
      GroupByKeyTranslator.GroupingKey groupingKey,
      Coder<WindowedValue<Object>> elementCoder,
      int partitions) {
    JavaRDD<Tuple2<byte[], byte[]>> keyed = Rdds.mapPartitions(input, new Encode(stepName, groupingKey, elementCoder), false);
    return Rdds.mapPartitions(sortedByKey(keyed, new ByHash(partitions)), new Decode(stepName, elementCoder), false);
  }

  /**
   * Byte-array records shuffled into {@code partitioner}'s partitions, each sorted by key, bytes
   * compared unsigned; written as they are ({@link ByteArraySerializer}).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static JavaRDD<Tuple2<byte[], byte[]>> sortedByKey(JavaRDD<Tuple2<byte[], byte[]>> records, BytesPartitioner partitioner) {
    ClassTag<byte[]> bytes = ClassTag$.MODULE$.apply(byte[].class);
    ShuffledRDD<byte[], byte[], byte[]> shuffled =
        new ShuffledRDD<byte[], byte[], byte[]>((RDD) records.rdd(), partitioner, bytes, bytes, bytes)
            .setKeyOrdering(Ordering.comparatorToOrdering(new Unsigned()))
            .setSerializer(new ByteArraySerializer());
    return new JavaRDD<>((RDD) shuffled, (ClassTag) ClassTag$.MODULE$.apply(Tuple2.class));
  }

  /**
   * Each element (per window) as (sort key, record): the sort key is its key hash and arrival
   * sequence, big-endian, the hash's sign bit flipped so that bytes compare as the numbers do;
   * the record is the key bytes, length first, then the element's encoding.
   */
  private static final class Encode
      implements Rdds.PartitionFunction<WindowedValue<Object>, Tuple2<byte[], byte[]>> {
    private final String stepName;
    private final GroupByKeyTranslator.GroupingKey groupingKey;
    private final Coder<WindowedValue<Object>> elementCoder;

    Encode(String stepName, GroupByKeyTranslator.GroupingKey groupingKey, Coder<WindowedValue<Object>> elementCoder) {
      this.stepName = stepName;
      this.groupingKey = groupingKey;
      this.elementCoder = elementCoder;
    }

    @Override
    public Iterator<Tuple2<byte[], byte[]>> apply(int partition, Iterator<WindowedValue<Object>> input) {
      // As Spark's monotonically_increasing_id: the partition in the upper bits, the position below.
      long first = (long) partition << 33;
      return new Iterator<>() {
        private final ByteArrayOutputStream record = new ByteArrayOutputStream();
        private long position;
        private Iterator<WindowedValue<Object>> windows = List.<WindowedValue<Object>>of().iterator();

        @Override
        public boolean hasNext() {
          return windows.hasNext() || input.hasNext();
        }

        @Override
        public Tuple2<byte[], byte[]> next() {
          if (!windows.hasNext()) {
            windows = perWindow(input.next());
          }
          try {
            return encode(windows.next());
          } catch (IOException | RuntimeException e) {
            throw new StepFailure(stepName, e);
          }
        }

        private Tuple2<byte[], byte[]> encode(WindowedValue<Object> element) throws IOException {
          byte[] key = groupingKey.call((WindowedValue) element);
          ByteBuffer sortKey = ByteBuffer.allocate(16);
          sortKey.putLong(GroupByKeyTranslator.hash64(key) ^ Long.MIN_VALUE);
          sortKey.putLong(first + position++);
          record.reset();
          VarInt.encode(key.length, record);
          record.write(key);
          elementCoder.encode(element, record);
          return new Tuple2<>(sortKey.array(), record.toByteArray());
        }
      };
    }

    @SuppressWarnings("unchecked")
    private static Iterator<WindowedValue<Object>> perWindow(WindowedValue<Object> value) {
      if (value.getWindows().size() == 1) {
        return List.of(value).iterator();
      }
      List<WindowedValue<Object>> out = new ArrayList<>(value.getWindows().size());
      for (WindowedValue<Object> single : (Iterable<WindowedValue<Object>>) (Iterable<?>) value.explodeWindows()) {
        out.add(single);
      }
      return out.iterator();
    }
  }

  /** The (key hash, key bytes, element) of each shuffled record, in the order they come. */
  private static final class Decode
      implements Rdds.PartitionFunction<Tuple2<byte[], byte[]>, Tuple3<Long, byte[], WindowedValue<Object>>> {
    private final String stepName;
    private final Coder<WindowedValue<Object>> elementCoder;

    Decode(String stepName, Coder<WindowedValue<Object>> elementCoder) {
      this.stepName = stepName;
      this.elementCoder = elementCoder;
    }

    @Override
    public Iterator<Tuple3<Long, byte[], WindowedValue<Object>>> apply(int partition, Iterator<Tuple2<byte[], byte[]>> input) {
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return input.hasNext();
        }

        @Override
        public Tuple3<Long, byte[], WindowedValue<Object>> next() {
          if (!input.hasNext()) {
            throw new NoSuchElementException();
          }
          Tuple2<byte[], byte[]> shuffled = input.next();
          try {
            ByteArrayInputStream record = new ByteArrayInputStream(shuffled._2());
            byte[] key = new byte[VarInt.decodeInt(record)];
            if (record.read(key, 0, key.length) != key.length) {
              throw new IOException("A shuffled record ends inside its key");
            }
            long hash = ByteBuffer.wrap(shuffled._1()).getLong() ^ Long.MIN_VALUE;
            return new Tuple3<>(hash, key, elementCoder.decode(record));
          } catch (IOException | RuntimeException e) {
            throw new StepFailure(stepName, e);
          }
        }
      };
    }
  }

  /** The partition of a sort key's hash (its first eight bytes). */
  private static final class ByHash extends BytesPartitioner {
    ByHash(int partitions) {
      super(partitions);
    }

    @Override
    int partitionOf(byte[] sortKey) {
      return Math.floorMod(ByteBuffer.wrap(sortKey).getLong(), numPartitions());
    }
  }

  /** Sort keys in the order of the numbers they hold. */
  private static final class Unsigned implements Comparator<byte[]>, Serializable {
    @Override
    public int compare(byte[] a, byte[] b) {
      return Arrays.compareUnsigned(a, b);
    }
  }
}
