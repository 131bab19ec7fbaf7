package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import dev.weir.translation.TestSpark;
import org.apache.beam.sdk.Pipeline;
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
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class CombinePerKeyTranslatorTest implements java.io.Serializable {

  @Test
  void sumsPerKeyAndWindowAsOneAggregator() {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> sums =
        TestInputs.keyed(p).apply(Window.into(FixedWindows.of(Duration.millis(10)))).apply("Sum", Sum.integersPerKey());
    PAssert.that(sums).containsInAnyOrder(KV.of("a", 3), KV.of("a", 3), KV.of("b", 4));
    String plan = TestSpark.run(p).explain();
    assertThat(plan, containsString("Sum -> CombinePerKeyTranslator"));
  }

  @Test
  void sparkAggregatesMapSideBeforeTheShuffle() {
    Pipeline p = TestSpark.pipeline();
    TestInputs.keyed(p).apply(Sum.integersPerKey());
    TestSpark.drainPlans();
    TestSpark.run(p);
    // Spark's plan aggregates partially before the exchange and merges after it.
    String plan = String.join("\n", TestSpark.drainPlans());
    assertThat(plan, containsString("partial_combineaggregator"));
    assertThat(plan, containsString("Exchange hashpartitioning"));
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
