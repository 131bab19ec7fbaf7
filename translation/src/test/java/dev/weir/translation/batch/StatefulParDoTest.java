package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.translation.TestSpark;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.TimePolicies.ProcessingTimeEndOfInput;
import dev.weir.translation.TimePolicies.ProcessingTimeTimers;
import dev.weir.translation.TimePolicies.WindowTriggers;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** State, timers and the time policies of a stateful ParDo and a GroupByKey in batch. */
class StatefulParDoTest implements java.io.Serializable {

  private static TimePolicies policies(ProcessingTimeTimers timers, ProcessingTimeEndOfInput end, WindowTriggers triggers) {
    return new TimePolicies(timers, end, triggers);
  }

  private static PCollection<KV<String, Integer>> input(Pipeline p) {
    return p.apply(
        Create.timestamped(
            TimestampedValue.of(KV.of("a", 3), new Instant(30)),
            TimestampedValue.of(KV.of("a", 1), new Instant(10)),
            TimestampedValue.of(KV.of("b", 5), new Instant(5)),
            TimestampedValue.of(KV.of("a", 2), new Instant(20))));
  }

  @Test
  void stateIsPerKeyAndTimeSortedInputArrivesInTimestampOrder() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = input(p).apply(ParDo.of(new RunningList()));
    PAssert.that(out).containsInAnyOrder("a:[1]", "a:[1, 2]", "a:[1, 2, 3]", "b:[5]");
    TestSpark.run(p);
  }

  @Test
  void eventTimersFireInTimestampOrderAtTheEndOfInputIncludingTimersSetWhileFiring() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = input(p).apply(ParDo.of(new ChainedTimers()));
    // At its earliest element each key sets "late" at +200, then "early" at +100; "early" sets
    // itself again 10 ms later once. Firings are numbered: timestamp order, whatever the order
    // of setting, and only after the key's whole input (all 3 elements of "a" counted).
    PAssert.that(out).containsInAnyOrder(
        "a #1 early@110 after 3", "a #2 early@120 after 3", "a #3 late@210 after 3",
        "b #1 early@105 after 1", "b #2 early@115 after 1", "b #3 late@205 after 1");
    TestSpark.run(p);
  }

  @Test
  void processingTimeTimersFailByDefaultNamingStepAndOption() {
    Pipeline p = TestSpark.pipeline();
    input(p).apply("Remind", ParDo.of(new ProcessingTimeFn()));
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> TestSpark.run(p, TimePolicies.batchDefaults()));
    assertThat(e.getMessage(), containsString("Step 'Remind/ParMultiDo(ProcessingTime)'"));
    assertThat(e.getMessage(), org.hamcrest.Matchers.either(containsString("processing-time timer 'remind'"))
        .or(containsString("processing-time timer 'now'")));
    assertThat(e.getMessage(), containsString("--processingTimeTimers=ALLOW"));
    assertThat(e.getMessage(), containsString("--processingTimeTimers=IGNORE"));
  }

  @Test
  void processingTimeTriggersFailByDefault() {
    Pipeline p = TestSpark.pipeline();
    input(p)
        .apply(Window.<KV<String, Integer>>configure()
            .triggering(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(Duration.standardMinutes(1))))
            .discardingFiredPanes()
            .withAllowedLateness(Duration.ZERO))
        .apply("Group", GroupByKey.create());
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> TestSpark.run(p, TimePolicies.batchDefaults()));
    assertThat(e.getMessage(), containsString("Step 'Group'"));
    assertThat(e.getMessage(), containsString("fires in processing time"));
  }

  @Test
  void ignoreDropsProcessingTimeTimers() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = input(p).apply(ParDo.of(new ProcessingTimeFn()));
    PAssert.that(out).containsInAnyOrder("a", "b");
    TestSpark.run(p, policies(ProcessingTimeTimers.IGNORE, ProcessingTimeEndOfInput.IGNORE, WindowTriggers.IGNORE));
  }

  @Test
  void allowFiresDueTimersAgainstTheClockAndFireAndQuiesceFiresPendingOnesOnce() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = input(p).apply(ParDo.of(new ProcessingTimeFn()));
    // "now" timers fire as the clock advances after an element; the one-hour timer fires once at
    // the end of input, and the one it sets then is ignored.
    PAssert.that(out).containsInAnyOrder("a", "b", "a now", "b now", "a later", "b later");
    TestSpark.run(p, policies(ProcessingTimeTimers.ALLOW, ProcessingTimeEndOfInput.FIRE_AND_QUIESCE, WindowTriggers.IGNORE));
  }

  @Test
  void allowWithIgnoreAtEndOfInputDropsPendingTimers() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = input(p).apply(ParDo.of(new ProcessingTimeFn()));
    PAssert.that(out).containsInAnyOrder("a", "b", "a now", "b now");
    TestSpark.run(p, policies(ProcessingTimeTimers.ALLOW, ProcessingTimeEndOfInput.IGNORE, WindowTriggers.IGNORE));
  }

  private static PCollection<String> panes(Pipeline p) {
    return input(p)
        .apply(Window.<KV<String, Integer>>into(FixedWindows.of(Duration.millis(100)))
            .triggering(Repeatedly.forever(AfterPane.elementCountAtLeast(1)))
            .accumulatingFiredPanes()
            .withAllowedLateness(Duration.ZERO))
        .apply(GroupByKey.create())
        .apply(ParDo.of(new DescribePane()));
  }

  @Test
  void windowTriggersIgnoreFiresEachWindowOnceComplete() {
    Pipeline p = TestSpark.pipeline();
    PAssert.that(panes(p)).containsInAnyOrder("a [1, 2, 3] ON_TIME last", "b [5] ON_TIME last");
    TestSpark.run(p);
  }

  @Test
  void windowTriggersAllowHonoursTheTrigger() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> panes = panes(p);
    PAssert.that(panes).satisfies(all -> {
      List<String> list = new ArrayList<>();
      all.forEach(list::add);
      // Every element makes an early pane of what has accumulated, so key "a" fires more than
      // once; the final pane always holds every value.
      assertThat(list.stream().filter(s -> s.startsWith("a ")).count() > 1, org.hamcrest.Matchers.is(true));
      assertThat(list.stream().anyMatch(s -> s.startsWith("a [1, 2, 3]")), org.hamcrest.Matchers.is(true));
      assertThat(list.stream().anyMatch(s -> s.contains("EARLY")), org.hamcrest.Matchers.is(true));
      return null;
    });
    TestSpark.run(p, policies(ProcessingTimeTimers.FAIL, ProcessingTimeEndOfInput.IGNORE, WindowTriggers.ALLOW));
  }

  static final class RunningList extends DoFn<KV<String, Integer>, String> {
    @StateId("seen")
    private final StateSpec<BagState<Integer>> seen = StateSpecs.bag(VarIntCoder.of());

    @RequiresTimeSortedInput
    @ProcessElement
    public void process(@Element KV<String, Integer> e, @StateId("seen") BagState<Integer> seen, OutputReceiver<String> out) {
      seen.add(e.getValue());
      List<Integer> all = new ArrayList<>();
      seen.read().forEach(all::add);
      out.output(e.getKey() + ":" + all);
    }
  }

  static final class ChainedTimers extends DoFn<KV<String, Integer>, String> {
    @StateId("count")
    private final StateSpec<ValueState<Integer>> count = StateSpecs.value(VarIntCoder.of());

    @StateId("fired")
    private final StateSpec<ValueState<Integer>> fired = StateSpecs.value(VarIntCoder.of());

    @StateId("key")
    private final StateSpec<ValueState<String>> key = StateSpecs.value();

    @TimerId("early")
    private final TimerSpec early = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @TimerId("late")
    private final TimerSpec late = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @RequiresTimeSortedInput
    @ProcessElement
    public void process(
        ProcessContext c,
        @StateId("count") ValueState<Integer> count,
        @StateId("key") ValueState<String> key,
        @TimerId("early") Timer early,
        @TimerId("late") Timer late) {
      Integer n = count.read();
      if (n == null) {
        late.set(c.timestamp().plus(Duration.millis(200)));
        early.set(c.timestamp().plus(Duration.millis(100)));
      }
      count.write(n == null ? 1 : n + 1);
      key.write(c.element().getKey());
    }

    private static String fire(
        String name, OnTimerContext c, ValueState<Integer> count, ValueState<Integer> fired, ValueState<String> key) {
      int n = fired.read() == null ? 1 : fired.read() + 1;
      fired.write(n);
      return key.read() + " #" + n + " " + name + "@" + c.timestamp().getMillis() + " after " + count.read();
    }

    @OnTimer("early")
    public void onEarly(
        OnTimerContext c,
        @StateId("count") ValueState<Integer> count,
        @StateId("fired") ValueState<Integer> fired,
        @StateId("key") ValueState<String> key,
        @TimerId("early") Timer early) {
      c.output(fire("early", c, count, fired, key));
      if (fired.read() == 1) {
        early.set(c.timestamp().plus(Duration.millis(10)));
      }
    }

    @OnTimer("late")
    public void onLate(
        OnTimerContext c,
        @StateId("count") ValueState<Integer> count,
        @StateId("fired") ValueState<Integer> fired,
        @StateId("key") ValueState<String> key) {
      c.output(fire("late", c, count, fired, key));
    }
  }

  static final class ProcessingTimeFn extends DoFn<KV<String, Integer>, String> {
    @StateId("key")
    private final StateSpec<ValueState<String>> key = StateSpecs.value();

    @StateId("fired")
    private final StateSpec<ValueState<Boolean>> fired = StateSpecs.value();

    @TimerId("remind")
    private final TimerSpec remind = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    @TimerId("now")
    private final TimerSpec now = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    @ProcessElement
    public void process(
        @Element KV<String, Integer> e,
        @StateId("key") ValueState<String> key,
        @TimerId("remind") Timer remind,
        @TimerId("now") Timer now,
        OutputReceiver<String> out) {
      if (key.read() == null) {
        out.output(e.getKey());
        key.write(e.getKey());
        now.offset(Duration.ZERO).setRelative();
        remind.offset(Duration.standardHours(1)).setRelative();
      }
    }

    @OnTimer("now")
    public void onNow(@StateId("key") ValueState<String> key, OutputReceiver<String> out) {
      out.output(key.read() + " now");
    }

    @OnTimer("remind")
    public void onRemind(@StateId("key") ValueState<String> key, @TimerId("remind") Timer remind, OutputReceiver<String> out) {
      out.output(key.read() + " later");
      remind.offset(Duration.standardHours(1)).setRelative();
    }

    @Override
    public String toString() {
      return "ProcessingTime";
    }
  }

  static final class DescribePane extends DoFn<KV<String, Iterable<Integer>>, String> {
    @ProcessElement
    public void process(ProcessContext c) {
      List<Integer> values = new ArrayList<>();
      c.element().getValue().forEach(values::add);
      values.sort(null);
      c.output(c.element().getKey() + " " + values + " " + c.pane().getTiming() + (c.pane().isLast() ? " last" : ""));
    }
  }
}
