package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Duration;
import org.joda.time.Instant;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.RocksDbStateBackend;
import dev.weir.translation.streaming.state.StateBackend;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The streaming stateful ParDo's state and timers across epochs, driven without Spark ({@link
 * StatefulParDoHarness}). Expected outputs follow from Beam's state and timer semantics: state is
 * per key and window and outlives bundles; an event-time timer fires once the input watermark is
 * past it (after it, as runners-core's InMemoryTimerInternals has it: a watermark at the timer's
 * time is not enough), a processing-time timer once processing time is; a pending timer holds the
 * output watermark at its output timestamp.
 */
class StatefulParDoOperatorTest {
  /** Every test runs with each state backend: the operator must not tell them apart. */
  static Stream<StateBackend> backends() {
    return Stream.of(MemoryStateBackend.INSTANCE, new RocksDbStateBackend(16));
  }

  private static final TimePolicies STREAMING = TimePolicies.streamingDefaults();
  private static final BoundedWindow GLOBAL = GlobalWindow.INSTANCE;

  private static Instant at(long millis) {
    return new Instant(millis);
  }

  private static <T> List<T> values(List<WindowedValue<T>> out) {
    List<T> values = new ArrayList<>();
    out.forEach(v -> values.add(v.getValue()));
    return values;
  }

  private static StatefulParDoHarness<String, Integer, String> harness(DoFn<KV<String, Integer>, String> fn) {
    return new StatefulParDoHarness<>(
        fn, WindowingStrategy.globalDefault(), StringUtf8Coder.of(), VarIntCoder.of(), StringUtf8Coder.of(), STREAMING);
  }

  /** A running sum per key: "key=sum" after each element. */
  private static final class RunningSum extends DoFn<KV<String, Integer>, String> {
    @StateId("sum")
    private final StateSpec<ValueState<Integer>> sumSpec = StateSpecs.value(VarIntCoder.of());

    @ProcessElement
    public void process(@Element KV<String, Integer> e, @StateId("sum") ValueState<Integer> sum, OutputReceiver<String> out) {
      int now = (sum.read() == null ? 0 : sum.read()) + e.getValue();
      sum.write(now);
      out.output(e.getKey() + "=" + now);
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aKeysStateOutlivesTheEpoch(StateBackend backend) throws Exception {
    try (StatefulParDoHarness<String, Integer, String> h = harness(new RunningSum()).withBackend(backend)) {
      h.add("a", 1, at(1), GLOBAL).add("a", 2, at(2), GLOBAL).add("b", 10, at(3), GLOBAL);
      assertThat(values(h.epoch(at(3), at(1_000), at(1_000))), containsInAnyOrder("a=1", "a=3", "b=10"));
      h.add("a", 3, at(4), GLOBAL);
      assertThat(values(h.epoch(at(5), at(2_000), at(2_000))), contains("a=6"));
    }
  }

  /** On each element, an event-time timer 5 ms after it; the timer emits "key fired at T". */
  private static final class EventTimer extends DoFn<KV<String, Integer>, String> {
    @TimerId("t")
    private final TimerSpec spec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(@Element KV<String, Integer> e, @Timestamp Instant ts, @TimerId("t") Timer timer) {
      timer.set(ts.plus(Duration.millis(5)));
    }

    @OnTimer("t")
    public void onTimer(@Key String key, @Timestamp Instant ts, OutputReceiver<String> out) {
      out.output(key + " fired at " + ts.getMillis());
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void anEventTimeTimerFiresOnceTheWatermarkPassesItAndHoldsTheWatermarkUntilThen(StateBackend backend) throws Exception {
    try (StatefulParDoHarness<String, Integer, String> h = harness(new EventTimer()).withBackend(backend)) {
      h.add("a", 1, at(5), GLOBAL);
      // The watermark reaches the timer (10) but is not past it: nothing fires, and the timer
      // holds at 10.
      assertThat(h.epoch(at(10), at(1_000), at(1_000)), empty());
      assertThat(h.hold(), equalTo(at(10)));
      assertThat(h.nextEventTimer(), equalTo(at(10)));
      // Past it: it fires at its time. What holds now is only the key's state cleanup timer,
      // which runners-core's StatefulDoFnRunner sets for the window's end (output timestamp: the
      // window's last).
      assertThat(values(h.epoch(at(11), at(2_000), at(2_000))), contains("a fired at 10"));
      assertThat(h.hold(), equalTo(GlobalWindow.INSTANCE.maxTimestamp()));
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void anEventTimeTimerSetInAnEpochFiresInTheNextOneAtTheEarliest(StateBackend backend) throws Exception {
    try (StatefulParDoHarness<String, Integer, String> h = harness(new EventTimer()).withBackend(backend)) {
      h.add("a", 1, at(5), GLOBAL);
      // The watermark passes the timer in the epoch whose element set it: the element's outputs
      // reach downstream steps first (the DirectRunner delivers a timer in a later bundle), and
      // until it fires the timer holds the watermark.
      assertThat(h.epoch(at(20), at(1_000), at(1_000)), empty());
      assertThat(h.hold(), equalTo(at(10)));
      assertThat(values(h.epoch(at(20), at(2_000), at(2_000))), contains("a fired at 10"));
    }
  }

  /** On each element, a processing-time timer 100 ms after the element arrived. */
  private static final class ProcessingTimer extends DoFn<KV<String, Integer>, String> {
    @TimerId("t")
    private final TimerSpec spec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    @ProcessElement
    public void process(@Element KV<String, Integer> e, @TimerId("t") Timer timer) {
      timer.offset(Duration.millis(100)).setRelative();
    }

    @OnTimer("t")
    public void onTimer(@Key String key, OutputReceiver<String> out) {
      out.output(key + " fired");
    }
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aProcessingTimeTimerFiresOnceTheStepsClockIsPastIt(StateBackend backend) throws Exception {
    try (StatefulParDoHarness<String, Integer, String> h = harness(new ProcessingTimer()).withBackend(backend)) {
      h.add("a", 1, at(1), GLOBAL);
      // Arrived at 1000: set for 1100; the step runs at 1100, not after it.
      assertThat(h.epoch(at(1), at(1_000), at(1_100)), empty());
      // The next epoch's step runs at 1101.
      assertThat(values(h.epoch(at(1), at(1_050), at(1_101))), contains("a fired"));
    }
  }
}
