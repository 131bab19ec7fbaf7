package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.KeyWindowCombiner;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.RocksDbStateBackend;
import dev.weir.translation.streaming.state.StateBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A combining step whose windows fire once, at their end, run by {@link EndOfWindowCombining} and,
 * for the same input, by Beam's ReduceFnRunner: both must emit what Beam's model says, each
 * window's sum in one on-time pane, its only one, at the window's end, once the watermark passed
 * it; the step's output watermark held at the earliest open window's end; a partial accumulator of
 * a window already past its end dropped.
 */
class EndOfWindowCombiningTest {
  private static final TimePolicies STREAMING = TimePolicies.streamingDefaults();
  private static final WindowingStrategy<?, ?> SLIDING =
      WindowingStrategy.of(SlidingWindows.of(Duration.standardSeconds(10)).every(Duration.standardSeconds(5)));

  /** Each backend, each run by EndOfWindowCombining and by Beam's ReduceFnRunner. */
  static Stream<Object[]> runs() {
    return Stream.of(
        new Object[] {MemoryStateBackend.INSTANCE, true},
        new Object[] {MemoryStateBackend.INSTANCE, false},
        new Object[] {new RocksDbStateBackend(16), true},
        new Object[] {new RocksDbStateBackend(16), false});
  }

  private static IntervalWindow window(long startMillis) {
    return new IntervalWindow(new Instant(startMillis), Duration.standardSeconds(10));
  }

  @ParameterizedTest
  @MethodSource("runs")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void eachWindowFiresItsSumOnceWhenTheWatermarkPassesItsEnd(StateBackend backend, boolean endOfWindow) throws Exception {
    Combine.CombineFn<Integer, int[], Integer> sum = Sum.ofIntegers();
    Coder<int[]> accumulatorCoder = sum.getAccumulatorCoder(CoderRegistry.createDefault(), VarIntCoder.of());
    SystemReduceFn<String, int[], ?, Integer, BoundedWindow> reduceFn =
        (SystemReduceFn) CombinePerKeyStreamingTranslator.keyedSide((Coder) StringUtf8Coder.of(), sum, (Coder) accumulatorCoder);
    try (GroupByKeyHarness<String, int[], Integer> combine =
        GroupByKeyHarness.combining(SLIDING, StringUtf8Coder.of(), accumulatorCoder, reduceFn, VarIntCoder.of(), STREAMING)
            .withBackend(backend)) {
      if (endOfWindow) {
        KeyWindowCombiner combiner =
            new KeyWindowCombiner(
                "Sum", sum, new SerializablePipelineOptions(PipelineOptionsFactory.create()), TimestampCombiner.END_OF_WINDOW);
        combine.withEndOfWindow(
            new EndOfWindowCombining(combiner, (Coder) SLIDING.getWindowFn().windowCoder(), (Coder) accumulatorCoder));
      }
      // Partial accumulators come at their window's end, as the map side sends them.
      add(combine, "a", 3, window(0));
      add(combine, "a", 4, window(-5_000));
      add(combine, "b", 5, window(0));
      assertThat(panes(combine.epoch(new Instant(4_000), new Instant(1_000), new Instant(1_000))), empty());
      assertThat(combine.hold(), equalTo(new Instant(4_999)));

      add(combine, "a", 1, window(0));
      add(combine, "a", 2, window(5_000));
      assertThat(
          panes(combine.epoch(new Instant(9_000), new Instant(2_000), new Instant(2_000))),
          containsInAnyOrder("a [-5000, 5000) 4 at 4999"));
      assertThat(combine.hold(), equalTo(new Instant(9_999)));

      // [-5000, 5000) is past its end: without allowed lateness, this is dropped.
      add(combine, "b", 6, window(-5_000));
      add(combine, "a", 7, window(10_000));
      assertThat(
          panes(combine.epoch(new Instant(20_000), new Instant(3_000), new Instant(3_000))),
          containsInAnyOrder(
              "a [0, 10000) 4 at 9999", "b [0, 10000) 5 at 9999", "a [5000, 15000) 2 at 14999", "a [10000, 20000) 7 at 19999"));
      assertThat(panes(combine.epoch(new Instant(30_000), new Instant(4_000), new Instant(4_000))), empty());
    }
  }

  @Test
  void onlyWindowsThatFireOnceAtTheirEndQualify() {
    assertThat(EndOfWindowCombining.whyNot(SLIDING), nullValue());
    assertThat(
        EndOfWindowCombining.whyNot(SLIDING.withAllowedLateness(Duration.standardSeconds(1))),
        containsString("allowed lateness"));
    assertThat(
        EndOfWindowCombining.whyNot(SLIDING.withTrigger(AfterPane.elementCountAtLeast(1))), containsString("trigger"));
    assertThat(
        EndOfWindowCombining.whyNot(WindowingStrategy.of(Sessions.withGapDuration(Duration.standardSeconds(1)))),
        containsString("merge"));
    assertThat(
        EndOfWindowCombining.whyNot(SLIDING.withTimestampCombiner(TimestampCombiner.EARLIEST)),
        containsString("EARLIEST"));
  }

  private static void add(GroupByKeyHarness<String, int[], Integer> combine, String key, int value, IntervalWindow window)
      throws Exception {
    combine.add(key, new int[] {value}, window.maxTimestamp(), window);
  }

  /** Each pane as "key [start, end) sum at timestamp"; only a window's one on-time pane is expected. */
  private static List<String> panes(List<WindowedValue<KV<String, Integer>>> out) {
    List<String> panes = new ArrayList<>();
    for (WindowedValue<KV<String, Integer>> pane : out) {
      assertThat(pane.getPaneInfo(), equalTo(PaneInfo.ON_TIME_AND_ONLY_FIRING));
      IntervalWindow window = (IntervalWindow) pane.getWindows().iterator().next();
      panes.add(
          pane.getValue().getKey() + " [" + window.start().getMillis() + ", " + window.end().getMillis() + ") "
              + pane.getValue().getValue() + " at " + pane.getTimestamp().getMillis());
    }
    return panes;
  }
}
