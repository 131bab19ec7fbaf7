package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.beam.sdk.values.WindowingStrategy.AccumulationMode;
import org.joda.time.Duration;
import org.joda.time.Instant;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.RocksDbStateBackend;
import dev.weir.translation.streaming.state.StateBackend;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The streaming GroupByKey's handling of processing time within and between epochs, driven
 * without Spark ({@link GroupByKeyHarness}). Expected panes follow from Beam's trigger semantics:
 * a processing-time trigger fires once processing time is past its element's arrival plus its
 * delay, a synchronized processing-time (continuation) trigger once the synchronized processing
 * time is past the arrival of its pane's first element.
 */
class GroupByKeyOperatorTest {
  /** Every test runs with each state backend: the operator must not tell them apart. */
  static Stream<StateBackend> backends() {
    return Stream.of(MemoryStateBackend.INSTANCE, new RocksDbStateBackend(16));
  }

  private static final TimePolicies STREAMING = TimePolicies.streamingDefaults();

  private static Instant at(long millis) {
    return new Instant(millis);
  }

  /** Each pane as "TIMING [values]". */
  private static List<String> panes(List<WindowedValue<KV<String, Iterable<Integer>>>> out) {
    List<String> panes = new ArrayList<>();
    for (WindowedValue<KV<String, Iterable<Integer>>> pane : out) {
      List<Integer> values = new ArrayList<>();
      pane.getValue().getValue().forEach(values::add);
      panes.add(pane.getPaneInfo().getTiming() + " " + values);
    }
    return panes;
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aProcessingTimeTriggerFiresInTheEpochItsElementArrivedInOnceTheStepsClockPassedItsDelay(StateBackend backend) throws Exception {
    WindowingStrategy<?, ?> strategy =
        WindowingStrategy.of(new GlobalWindows())
            .withTrigger(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(Duration.millis(1))))
            .withMode(AccumulationMode.ACCUMULATING_FIRED_PANES);
    try (GroupByKeyHarness<String, Integer, Iterable<Integer>> gbk =
        GroupByKeyHarness.buffering(strategy, StringUtf8Coder.of(), VarIntCoder.of(), STREAMING).withBackend(backend)) {
      gbk.add("k", 1, at(0), GlobalWindow.INSTANCE);
      // Arrived at 1,000; the step runs at 1,005, past 1,000 + 1 ms.
      assertThat(panes(gbk.epoch(at(0), at(1000), at(1005))), contains("EARLY [1]"));

      gbk.add("k", 2, at(0), GlobalWindow.INSTANCE);
      // The step's clock is the epoch's: no time passed since the arrival, so no pane yet.
      assertThat(panes(gbk.epoch(at(0), at(2000), at(2000))), empty());
      assertThat(panes(gbk.epoch(at(0), at(3000), at(3000))), contains("EARLY [1, 2]"));
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aWindowTheWatermarkClosesInAnEpochGetsThatEpochsElementsInItsOnTimePane(StateBackend backend) throws Exception {
    WindowingStrategy<?, ?> strategy =
        WindowingStrategy.of(FixedWindows.of(Duration.standardSeconds(1)))
            .withTrigger(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane()))
            .withMode(AccumulationMode.DISCARDING_FIRED_PANES)
            .withAllowedLateness(Duration.ZERO);
    IntervalWindow window = new IntervalWindow(at(0), at(1000));
    try (GroupByKeyHarness<String, Integer, Iterable<Integer>> gbk =
        GroupByKeyHarness.buffering(strategy, StringUtf8Coder.of(), VarIntCoder.of(), STREAMING).withBackend(backend)) {
      gbk.add("k", 1, at(100), window).add("k", 2, at(200), window);
      // The elements and the watermark past the window arrive together at 5,000; the trigger's
      // timer falls due while the epoch runs, after the watermark closed the window.
      assertThat(panes(gbk.epoch(at(1000), at(5000), at(5010))), contains("ON_TIME [1, 2]"));
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aContinuationTriggerFiresInTheNextEpochBeforeThatEpochsElements(StateBackend backend) throws Exception {
    WindowingStrategy<?, ?> strategy =
        WindowingStrategy.of(new GlobalWindows())
            .withTrigger(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane()).getContinuationTrigger())
            .withMode(AccumulationMode.ACCUMULATING_FIRED_PANES);
    try (GroupByKeyHarness<String, Integer, Iterable<Integer>> gbk =
        GroupByKeyHarness.buffering(strategy, StringUtf8Coder.of(), VarIntCoder.of(), STREAMING).withBackend(backend)) {
      gbk.add("k", 42, at(0), GlobalWindow.INSTANCE);
      // The synchronized processing time is the epoch's clock, the element's arrival: not past it.
      assertThat(panes(gbk.epoch(at(0), at(1000), at(1010))), empty());

      gbk.add("k", 43, at(0), GlobalWindow.INSTANCE);
      // At 2,000 the first pane's trigger is due before the epoch's element arrives.
      assertThat(panes(gbk.epoch(at(0), at(2000), at(2010))), contains("EARLY [42]"));
      assertThat(panes(gbk.epoch(at(0), at(3000), at(3010))), contains("EARLY [42, 43]"));
    }
  }

  /**
   * A Combine.PerKey's keyed side, fed partial sums (what its map side sends each epoch): the
   * key and window's sum grows across epochs, the on-time pane carries the sum of every partial
   * that came before the watermark passed the window, and a late one within the allowed lateness
   * fires a late pane, with everything so far in accumulating mode and only itself in discarding.
   */
  @ParameterizedTest
  @MethodSource("backends")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aCombineMergesItsPartialAccumulatorsAcrossEpochsIntoItsPanes(StateBackend backend) throws Exception {
    IntervalWindow window = new IntervalWindow(at(0), at(10_000));
    for (AccumulationMode mode : AccumulationMode.values()) {
      if (mode == AccumulationMode.RETRACTING_FIRED_PANES) {
        continue; // Beam has no retractions.
      }
      WindowingStrategy<?, ?> strategy =
          WindowingStrategy.of(FixedWindows.of(Duration.standardSeconds(10)))
              .withMode(mode)
              .withAllowedLateness(Duration.standardSeconds(30));
      Combine.CombineFn<Integer, int[], Integer> sum = Sum.ofIntegers();
      Coder<int[]> accumulatorCoder = sum.getAccumulatorCoder(CoderRegistry.createDefault(), VarIntCoder.of());
      SystemReduceFn<String, int[], ?, Integer, BoundedWindow> reduceFn =
          (SystemReduceFn) CombinePerKeyStreamingTranslator.keyedSide((Coder) StringUtf8Coder.of(), sum, (Coder) accumulatorCoder);
      try (GroupByKeyHarness<String, int[], Integer> combine =
          GroupByKeyHarness.combining(strategy, StringUtf8Coder.of(), accumulatorCoder, reduceFn, VarIntCoder.of(), STREAMING)
              .withBackend(backend)) {
        Instant end = window.maxTimestamp();
        combine.add("k", new int[] {3}, end, window).add("k", new int[] {4}, end, window);
        assertThat(combine.epoch(at(5_000), at(1000), at(1000)), empty());
        combine.add("k", new int[] {5}, end, window);
        assertThat(sums(combine.epoch(at(10_000), at(2000), at(2000))), contains("ON_TIME 12"));
        combine.add("k", new int[] {2}, end, window);
        String late = mode == AccumulationMode.ACCUMULATING_FIRED_PANES ? "LATE 14" : "LATE 2";
        assertThat(mode.toString(), sums(combine.epoch(at(20_000), at(3000), at(3000))), contains(late));
      }
    }
  }

  /**
   * An early pane of a combining step keeps the value it fired with: the key's next partial, which
   * in accumulating mode merges into the same accumulator (here in place, as Beam allows), comes
   * after it. The CombineFn's output is its accumulator itself. Panes as Beam's trigger says: the
   * first element's pane fires once the step's clock passes its arrival plus 1 ms, before the
   * element of the epoch in which that happens; the next pane holds both.
   */
  @ParameterizedTest
  @MethodSource("backends")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void anEarlyPaneOfACombineIsNotChangedByTheInputAfterIt(StateBackend backend) throws Exception {
    WindowingStrategy<?, ?> strategy =
        WindowingStrategy.of(new GlobalWindows())
            .withTrigger(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(Duration.millis(1))))
            .withMode(AccumulationMode.ACCUMULATING_FIRED_PANES);
    Coder<List<Integer>> listCoder = ListCoder.of(VarIntCoder.of());
    SystemReduceFn<String, List<Integer>, ?, List<Integer>, BoundedWindow> reduceFn =
        (SystemReduceFn) CombinePerKeyStreamingTranslator.keyedSide((Coder) StringUtf8Coder.of(), new ToListInPlace(), (Coder) listCoder);
    try (GroupByKeyHarness<String, List<Integer>, List<Integer>> combine =
        GroupByKeyHarness.combining(strategy, StringUtf8Coder.of(), listCoder, reduceFn, listCoder, STREAMING).withBackend(backend)) {
      combine.add("k", new ArrayList<>(List.of(1)), at(0), GlobalWindow.INSTANCE);
      assertThat(lists(combine.epoch(at(0), at(1000), at(1000))), empty());
      combine.add("k", new ArrayList<>(List.of(2)), at(0), GlobalWindow.INSTANCE);
      assertThat(lists(combine.epoch(at(0), at(2000), at(2000))), contains("EARLY [1]"));
      assertThat(lists(combine.epoch(at(0), at(3000), at(3000))), contains("EARLY [1, 2]"));
    }
  }

  /** A list of the inputs whose merge adds into its first accumulator and whose output is the accumulator. */
  private static final class ToListInPlace extends Combine.CombineFn<Integer, List<Integer>, List<Integer>> {
    @Override
    public List<Integer> createAccumulator() {
      return new ArrayList<>();
    }

    @Override
    public List<Integer> addInput(List<Integer> accumulator, Integer input) {
      accumulator.add(input);
      return accumulator;
    }

    @Override
    public List<Integer> mergeAccumulators(Iterable<List<Integer>> accumulators) {
      java.util.Iterator<List<Integer>> it = accumulators.iterator();
      List<Integer> first = it.next();
      while (it.hasNext()) {
        first.addAll(it.next());
      }
      return first;
    }

    @Override
    public List<Integer> extractOutput(List<Integer> accumulator) {
      return accumulator;
    }
  }

  private static List<String> lists(List<WindowedValue<KV<String, List<Integer>>>> out) {
    List<String> panes = new ArrayList<>();
    for (WindowedValue<KV<String, List<Integer>>> pane : out) {
      panes.add(pane.getPaneInfo().getTiming() + " " + pane.getValue().getValue());
    }
    return panes;
  }

  private static List<String> sums(List<WindowedValue<KV<String, Integer>>> out) {
    List<String> panes = new ArrayList<>();
    for (WindowedValue<KV<String, Integer>> pane : out) {
      panes.add(pane.getPaneInfo().getTiming() + " " + pane.getValue().getValue());
    }
    return panes;
  }
}
