package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import dev.weir.translation.TestSpark;
import dev.weir.translation.runtime.CombineBuffer;
import dev.weir.translation.runtime.KeyWindowCombiner;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.CombineWithContext;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class CombinePerKeyTranslatorTest implements java.io.Serializable {

  @Test
  void sumsPerKeyAndWindowInOneTranslatedStep() {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> sums =
        TestInputs.keyed(p).apply(Window.into(FixedWindows.of(Duration.millis(10)))).apply("Sum", Sum.integersPerKey());
    PAssert.that(sums).containsInAnyOrder(KV.of("a", 3), KV.of("a", 3), KV.of("b", 4));
    String plan = TestSpark.run(p).explain();
    assertThat(plan, containsString("Sum -> CombinePerKeyTranslator"));
  }

  /**
   * 10,000 elements of 3 keys: each input partition sends one accumulator per key through the
   * shuffle, not one record per element.
   */
  @Test
  void eachPartitionShufflesOneAccumulatorPerKey() throws Exception {
    Pipeline p = TestSpark.pipeline();
    List<KV<String, Integer>> input = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      input.add(KV.of("k" + (i % 3), 1));
    }
    PCollection<KV<String, Integer>> sums = p.apply(Create.of(input)).apply(Sum.integersPerKey());
    PAssert.that(sums).containsInAnyOrder(KV.of("k0", 3334), KV.of("k1", 3333), KV.of("k2", 3333));
    ShuffleRecords records = ShuffleRecords.watch();
    TestSpark.run(p);
    // The assertion's own grouping shuffles too, a few records; element by element would be 10,000.
    assertThat(records.writtenByMapTasks(), lessThan(100L));
  }

  /** With room for 2 accumulators a partition sends them on every 2 keys; the sums stay right. */
  @Test
  void aFullMapIsSentOnAndMergedAfterTheShuffle() {
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      numbers.add(i);
    }
    List<String> out = KeyedCombine.combine(
            JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext()).parallelize(numbers, 3)
                .map(i -> WindowedValues.valueInGlobalWindow(KV.of((Object) ("k" + (i % 50)), (Object) i))),
            integerSumInTheGlobalWindow(StringUtf8Coder.of(), 2), 2)
        .map(kv -> kv.getValue().getKey() + "=" + kv.getValue().getValue())
        .collect();
    Map<String, Integer> sums = new HashMap<>();
    for (String kv : out) {
      String[] parts = kv.split("=");
      assertThat("one output per key", sums.put(parts[0], Integer.parseInt(parts[1])), nullValue());
    }
    Map<String, Integer> expected = new HashMap<>();
    for (int k = 0; k < 50; k++) {
      int sum = 0;
      for (int i = k; i < 600; i += 50) {
        sum += i;
      }
      expected.put("k" + k, sum);
    }
    assertThat(sums, equalTo(expected));
  }

  /** An element of sliding windows is added into each of its windows. */
  @Test
  void anElementCountsInEachOfItsSlidingWindows() {
    Pipeline p = TestSpark.pipeline();
    List<TimestampedValue<KV<String, Integer>>> ones = new ArrayList<>();
    for (int t = 0; t < 20; t++) {
      ones.add(TimestampedValue.of(KV.of("a", 1), new Instant(t)));
    }
    PCollection<KV<String, Integer>> sums =
        p.apply(Create.timestamped(ones))
            .apply(Window.into(SlidingWindows.of(Duration.millis(10)).every(Duration.millis(5))))
            .apply("Sum", Sum.integersPerKey());
    // Windows [-5, 5), [0, 10), [5, 15), [10, 20), [15, 25) hold 5, 10, 10, 10 and 5 of the times 0..19.
    PAssert.that(sums).containsInAnyOrder(KV.of("a", 5), KV.of("a", 10), KV.of("a", 10), KV.of("a", 10), KV.of("a", 5));
    assertThat(TestSpark.run(p).explain(), containsString("Sum -> CombinePerKeyTranslator"));
  }

  /** A key whose equals is identity: Beam groups it by its encoding. */
  static final class Name implements java.io.Serializable {
    final String value;

    Name(String value) {
      this.value = value;
    }
  }

  /** Deterministic, and (as a custom coder is by default) not consistent with equals. */
  static final class NameCoder extends AtomicCoder<Name> {
    @Override
    public void encode(Name name, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(name.value, out);
    }

    @Override
    public Name decode(InputStream in) throws IOException {
      return new Name(StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }

  /**
   * 10,000 elements of 3 keys in 3 partitions, every key a new object: the map side groups them
   * by encoding, so each partition sends one accumulator per key (9 records), not one per object.
   */
  @Test
  void keysNotConsistentWithEqualsAreCombinedByTheirEncoding() throws Exception {
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      numbers.add(i);
    }
    ShuffleRecords records = ShuffleRecords.watch();
    List<String> out = KeyedCombine.combine(
            JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext()).parallelize(numbers, 3)
                .map(i -> WindowedValues.valueInGlobalWindow(KV.of((Object) new Name("k" + (i % 3)), (Object) 1))),
            integerSumInTheGlobalWindow(new NameCoder(), KeyedCombine.MAP_SIDE_ENTRIES), 2)
        .map(kv -> ((Name) kv.getValue().getKey()).value + "=" + kv.getValue().getValue())
        .collect();
    assertThat(records.writtenByMapTasks(), equalTo(9L));
    assertThat(new java.util.TreeSet<>(out), equalTo(new java.util.TreeSet<>(List.of("k0=3334", "k1=3333", "k2=3333"))));
  }

  /** {@link KeyedCombine}'s spec for {@code Sum.ofIntegers()} per key of {@code keyCoder}, in the global window. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static KeyedCombine.Spec integerSumInTheGlobalWindow(Coder<?> keyCoder, int mapSideEntries) {
    Coder<BoundedWindow> windowCoder = (Coder) GlobalWindow.Coder.INSTANCE;
    Coder<Object> accumulatorCoder = (Coder) Sum.ofIntegers().getAccumulatorCoder(CoderRegistry.createDefault(), VarIntCoder.of());
    KeyWindowCombiner combiner = new KeyWindowCombiner("Sum", Sum.ofIntegers(),
        new SerializablePipelineOptions(PipelineOptionsFactory.create()), TimestampCombiner.END_OF_WINDOW);
    return new KeyedCombine.Spec(combiner, (Coder<Object>) keyCoder, windowCoder,
        new CombineBuffer.BufferCoder((Coder<Object>) keyCoder, windowCoder, accumulatorCoder), mapSideEntries);
  }

  /** Shuffle records written by the map tasks of the jobs run while watching. */
  static final class ShuffleRecords extends SparkListener {
    private final AtomicLong written = new AtomicLong();

    static ShuffleRecords watch() {
      ShuffleRecords records = new ShuffleRecords();
      TestSpark.session().sparkContext().addSparkListener(records);
      return records;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.taskMetrics() != null) {
        written.addAndGet(end.taskMetrics().shuffleWriteMetrics().recordsWritten());
      }
    }

    long writtenByMapTasks() throws java.util.concurrent.TimeoutException {
      TestSpark.session().sparkContext().listenerBus().waitUntilEmpty(60_000);
      TestSpark.session().sparkContext().removeSparkListener(this);
      return written.get();
    }
  }

  @Test
  void combineFnWithContextSeesThePipelineOptions() {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, String>> out = TestInputs.keyed(p).apply(Combine.perKey(new JobNameSum()));
    PAssert.that(out).containsInAnyOrder(KV.of("a", "translation-test:6"), KV.of("b", "translation-test:4"));
    TestSpark.run(p);
  }

  @Test
  void mergingWindowsAreCombinedAfterAGroupByKey() {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> sums =
        TestInputs.keyed(p).apply(Window.into(Sessions.withGapDuration(Duration.millis(5)))).apply("Sum", Sum.integersPerKey());
    PAssert.that(sums).containsInAnyOrder(KV.of("a", 3), KV.of("a", 3), KV.of("b", 4));
    String plan = TestSpark.run(p).explain();
    assertThat(plan, not(containsString("Sum -> CombinePerKeyTranslator")));
    assertThat(plan, containsString("GroupByKeyTranslator"));
  }

  @Test
  void globallyWithDefaultOnEmptyInput() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> empty = p.apply(Create.empty(VarIntCoder.of()));
    PAssert.thatSingleton(empty.apply(Sum.integersGlobally())).isEqualTo(0);
    TestSpark.run(p);
  }

  static final class JobNameSum extends CombineWithContext.CombineFnWithContext<Integer, int[], String> {
    @Override
    public int[] createAccumulator(CombineWithContext.Context c) {
      return new int[1];
    }

    @Override
    public int[] addInput(int[] acc, Integer input, CombineWithContext.Context c) {
      acc[0] += input;
      return acc;
    }

    @Override
    public int[] mergeAccumulators(Iterable<int[]> accs, CombineWithContext.Context c) {
      int[] merged = new int[1];
      for (int[] a : accs) {
        merged[0] += a[0];
      }
      return merged;
    }

    @Override
    public String extractOutput(int[] acc, CombineWithContext.Context c) {
      return c.getPipelineOptions().getJobName() + ":" + acc[0];
    }

    @Override
    public Coder<int[]> getAccumulatorCoder(CoderRegistry registry, Coder<Integer> inputCoder) {
      return org.apache.beam.sdk.coders.SerializableCoder.of(int[].class);
    }
  }
}
