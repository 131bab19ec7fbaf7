package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.translation.CoderFunctions;
import dev.weir.translation.TestSpark;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.Tuple3;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** The shuffle in front of a batch GroupByKey and stateful ParDo, and the serializer of its records. */
class HashSortedShuffleTest {

  /**
   * Every key's elements in one partition, together, in the order they were produced: input
   * partition by partition, each in order. Keys "a" and "b" have elements in both input partitions.
   */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aKeysElementsArriveTogetherInOnePartitionInTheOrderTheyWereProduced() throws Exception {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext());
    List<WindowedValue<Object>> input = new ArrayList<>();
    String[] keys = {"a", "b", "c", "a", "d", "b", "a", "e", "b", "a"};
    for (int i = 0; i < keys.length; i++) {
      input.add(WindowedValues.of(KV.of(keys[i], i), new Instant(100 - i), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING));
    }
    Coder<Object> keyCoder = (Coder) StringUtf8Coder.of();
    List<List<Shuffled>> partitions =
        HashSortedShuffle.sorted("Shuffle", parallelize(sc, input, elementCoder(), 2), new GroupByKeyTranslator.GroupingKey(keyCoder, null), elementCoder(), 3)
            .map(Shuffled::of)
            .glom()
            .collect();

    assertThat(partitions, hasSize(3));
    Map<String, List<Integer>> byKey = new LinkedHashMap<>();
    List<String> all = new ArrayList<>();
    for (List<Shuffled> partition : partitions) {
      String previous = null;
      for (Shuffled element : partition) {
        if (!element.key.equals(previous)) {
          // A key starts here: it must not have started before, in this partition or another.
          assertThat("key " + element.key + " split", byKey.containsKey(element.key), equalTo(false));
          all.add(element.key);
        }
        byKey.computeIfAbsent(element.key, k -> new ArrayList<>()).add(element.value);
        assertThat(element.keyBytes, equalTo(new GroupByKeyTranslator.GroupingKey(keyCoder, null).bytes(element.key, null)));
        assertThat(element.hash, equalTo(GroupByKeyTranslator.hash64(element.keyBytes)));
        assertThat(element.timestamp, equalTo(100L - element.value));
        previous = element.key;
      }
    }
    assertThat(all, containsInAnyOrder("a", "b", "c", "d", "e"));
    // parallelize splits the ten elements into 0-4 and 5-9.
    assertThat(byKey.get("a"), contains(0, 3, 6, 9));
    assertThat(byKey.get("b"), contains(1, 5, 8));
    assertThat(byKey.get("c"), contains(2));
  }

  /** An element in two windows is two elements, one per window, each under the same key. */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void anElementInSeveralWindowsArrivesOncePerWindow() throws Exception {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext());
    IntervalWindow first = new IntervalWindow(new Instant(0), new Instant(10));
    IntervalWindow second = new IntervalWindow(new Instant(5), new Instant(15));
    WindowedValue<Object> both = WindowedValues.of(KV.of("k", 1), new Instant(7), List.of(first, second), PaneInfo.NO_FIRING);
    Coder<Object> keyCoder = (Coder) StringUtf8Coder.of();
    Coder<WindowedValue<Object>> coder =
        (Coder) WindowedValues.getFullCoder(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()), IntervalWindow.getCoder());
    List<String> windows =
        HashSortedShuffle.sorted("Shuffle", parallelize(sc, List.of(both), coder, 1), new GroupByKeyTranslator.GroupingKey(keyCoder, null), coder, 1)
            .map(e -> e._3().getValue() + " in " + e._3().getWindows())
            .collect();
    assertThat(windows, containsInAnyOrder("KV{k, 1} in [" + first + "]", "KV{k, 1} in [" + second + "]"));
  }

  /** A key its coder cannot encode fails the job with an error that names the step. */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aKeyThatCannotBeEncodedNamesTheStep() throws Exception {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext());
    WindowedValue<Object> element = WindowedValues.of(KV.of("k", 1), new Instant(0), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING);
    Coder<Object> refusing = (Coder) new RefusingCoder();
    JavaRDD<WindowedValue<Object>> input = parallelize(sc, List.of(element), elementCoder(), 1);
    Exception e =
        assertThrows(
            Exception.class,
            () -> HashSortedShuffle.sorted("Group/ByKey", input, new GroupByKeyTranslator.GroupingKey(refusing, null), elementCoder(), 1).count());
    assertThat(e.getMessage(), containsString("Step 'Group/ByKey' failed"));
    assertThat(e.getMessage(), containsString("cannot encode k"));
  }

  /**
   * What Spark writes to a shuffle file or a spill, read back: every array, the empty one and
   * large ones included, as key and value, until the stream ends.
   */
  @Test
  void byteArraysRoundTripThroughTheSerializersStreams() {
    SerializerInstance serializer = new ByteArraySerializer().newInstance();
    ClassTag<byte[]> tag = ClassTag$.MODULE$.apply(byte[].class);
    Random random = new Random(42);
    List<byte[]> arrays = new ArrayList<>(List.of(new byte[0], new byte[] {-1}));
    for (int i = 0; i < 100; i++) {
      byte[] bytes = new byte[random.nextInt(i < 50 ? 20 : 70_000)];
      random.nextBytes(bytes);
      arrays.add(bytes);
    }
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    SerializationStream out = serializer.serializeStream(file);
    for (int i = 0; i + 1 < arrays.size(); i += 2) {
      out.writeKey(arrays.get(i), tag);
      out.writeValue(arrays.get(i + 1), tag);
    }
    out.close();

    DeserializationStream in = serializer.deserializeStream(new ByteArrayInputStream(file.toByteArray()));
    List<Tuple2<Object, Object>> read = new ArrayList<>();
    in.asKeyValueIterator().foreach(read::add);
    assertThat(read, hasSize(arrays.size() / 2));
    for (int i = 0; i < read.size(); i++) {
      assertThat((byte[]) read.get(i)._1(), equalTo(arrays.get(2 * i)));
      assertThat((byte[]) read.get(i)._2(), equalTo(arrays.get(2 * i + 1)));
    }
    byte[] one = arrays.get(10);
    assertThat(serializer.deserialize(serializer.serialize(one, tag), tag), equalTo(one));
  }

  /** A key coder that encodes nothing. */
  private static final class RefusingCoder extends AtomicCoder<String> {
    @Override
    public void encode(String value, OutputStream out) throws IOException {
      throw new IOException("cannot encode " + value);
    }

    @Override
    public String decode(InputStream in) {
      throw new UnsupportedOperationException();
    }
  }

  /** One shuffled element, in what a test can collect (a WindowedValue is not Java-serializable). */
  private static final class Shuffled implements Serializable {
    final long hash;
    final byte[] keyBytes;
    final String key;
    final int value;
    final long timestamp;

    @SuppressWarnings("unchecked")
    Shuffled(Tuple3<Long, byte[], WindowedValue<Object>> element) {
      KV<String, Integer> kv = (KV<String, Integer>) element._3().getValue();
      this.hash = element._1();
      this.keyBytes = element._2();
      this.key = kv.getKey();
      this.value = kv.getValue();
      this.timestamp = element._3().getTimestamp().getMillis();
    }

    static Shuffled of(Tuple3<Long, byte[], WindowedValue<Object>> element) {
      return new Shuffled(element);
    }
  }

  /** {@code elements} in {@code partitions} partitions, shipped to the tasks in their coder's bytes. */
  private static JavaRDD<WindowedValue<Object>> parallelize(
      JavaSparkContext sc, List<WindowedValue<Object>> elements, Coder<WindowedValue<Object>> coder, int partitions)
      throws Exception {
    List<byte[]> encoded = new ArrayList<>();
    for (WindowedValue<Object> element : elements) {
      encoded.add(new CoderFunctions.Encode<>(coder).call(element));
    }
    return sc.parallelize(encoded, partitions).map(new CoderFunctions.Decode<>(coder));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Coder<WindowedValue<Object>> elementCoder() {
    return (Coder) WindowedValues.getFullCoder(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()), GlobalWindow.Coder.INSTANCE);
  }
}
