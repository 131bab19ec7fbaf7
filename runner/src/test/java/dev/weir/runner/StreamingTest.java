package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.translation.streaming.OperatorWatermarks;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Max;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reify;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** Streaming pipelines on WeirRunner, end to end. */
class StreamingTest {

  private static Instant sec(long s) {
    return new Instant(s * 1000);
  }

  /**
   * Two aggregations in a row. The first window's max (6, timestamp 1 s: the earliest) is emitted
   * when the watermark reaches 3 s; with one global watermark the next aggregation would see it
   * late and drop it, leaving 5. With a watermark per operator it is on time downstream.
   */
  @Test
  void aSecondAggregationKeepsTheFirstOnesResult() {
    Pipeline p = Pipelines.create();
    TestStream<Integer> events =
        TestStream.create(VarIntCoder.of())
            .addElements(TimestampedValue.of(6, sec(1)), TimestampedValue.of(4, sec(2)), TimestampedValue.of(5, sec(3)))
            .advanceWatermarkTo(sec(3))
            .advanceWatermarkToInfinity();
    PCollection<Integer> max =
        p.apply(events)
            .apply(
                "Windows of 3 s",
                Window.<Integer>into(FixedWindows.of(Duration.standardSeconds(3)))
                    .withTimestampCombiner(TimestampCombiner.EARLIEST))
            .apply("Max", Max.integersGlobally().withoutDefaults());
    PAssert.that(max.apply("Timestamps", Reify.timestamps()))
        .containsInAnyOrder(TimestampedValue.of(6, sec(1)), TimestampedValue.of(5, sec(3)));
    PCollection<Integer> sum =
        max.apply("Windows of 10 s", Window.into(FixedWindows.of(Duration.standardSeconds(10))))
            .apply("Sum", Sum.integersGlobally().withoutDefaults());
    PAssert.that(sum).inWindow(new IntervalWindow(sec(0), sec(10))).containsInAnyOrder(11);
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
    for (OperatorWatermarks w : result.watermarks().values()) {
      assertThat(w.output(), equalTo(BoundedWindow.TIMESTAMP_MAX_VALUE));
    }
  }

  @Test
  void aBatchPipelineRunsInStreamingMode() {
    Pipeline p = Pipelines.create("--runtimeMode=STREAMING");
    PCollection<KV<String, Long>> counts = p.apply(Create.of("a", "b", "a", "c", "a")).apply(Count.perElement());
    PAssert.that(counts).containsInAnyOrder(KV.of("a", 3L), KV.of("b", 1L), KV.of("c", 1L));
    // Count.globally inserts its default through a side input.
    PAssert.thatSingleton(counts.apply("Keys", Count.globally())).isEqualTo(3L);
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  static final class PlusSideInput extends DoFn<Integer, Integer> {
    private final PCollectionView<Integer> side;

    PlusSideInput(PCollectionView<Integer> side) {
      this.side = side;
    }

    @ProcessElement
    public void process(ProcessContext c) {
      c.output(c.element() * 100 + c.sideInput(side));
    }
  }

  /** Each element waits until the side input of its window is complete, then reads all of it. */
  @Test
  void aWindowedSideInputIsReadWhenItsWindowIsComplete() {
    Pipeline p = Pipelines.create();
    TestStream<Integer> events =
        TestStream.create(VarIntCoder.of())
            .addElements(TimestampedValue.of(1, sec(1)), TimestampedValue.of(3, sec(2)))
            .advanceWatermarkTo(sec(5))
            .addElements(TimestampedValue.of(10, sec(12)))
            .advanceWatermarkToInfinity();
    PCollection<Integer> windowed =
        p.apply(events).apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))));
    PCollectionView<Integer> max =
        windowed.apply("Max", Max.integersGlobally().withoutDefaults()).apply(View.asSingleton());
    PCollection<Integer> out = windowed.apply("Plus max", ParDo.of(new PlusSideInput(max)).withSideInputs(max));
    PAssert.that(out).containsInAnyOrder(103, 303, 1010);
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  /** The side input as the main input element saw it. */
  static final class ReadSide extends DoFn<Integer, String> {
    private final PCollectionView<Integer> side;

    ReadSide(PCollectionView<Integer> side) {
      this.side = side;
    }

    @ProcessElement
    public void process(ProcessContext c) {
      c.output(c.element() + " saw " + c.sideInput(side));
    }
  }

  /**
   * A side input with a trigger is ready for a window once a pane arrived there, and holds that
   * window's latest pane: the main element (epoch 3) sees the sum of the second pane alone, 2
   * (panes discard). Waiting for the window to be complete would show the empty on-time pane's
   * sum, 0; keeping every pane would make the singleton fail.
   */
  @Test
  void aTriggeredSideInputIsReadAtItsLatestPane() {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(TimestampedValue.of(KV.of("side", 1), sec(1)))
            .addElements(TimestampedValue.of(KV.of("side", 2), sec(2)))
            .addElements(TimestampedValue.of(KV.of("main", 10), sec(3)))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, Integer>> all = p.apply(events);
    PCollectionView<Integer> side =
        all.apply("Side", org.apache.beam.sdk.transforms.Filter.by(kv -> kv.getKey().equals("side")))
            .apply("Side values", org.apache.beam.sdk.transforms.Values.create())
            .apply(
                "Side windows",
                Window.<Integer>into(FixedWindows.of(Duration.standardSeconds(10)))
                    .triggering(
                        org.apache.beam.sdk.transforms.windowing.Repeatedly.forever(
                            org.apache.beam.sdk.transforms.windowing.AfterPane.elementCountAtLeast(1)))
                    .withAllowedLateness(Duration.ZERO)
                    .discardingFiredPanes())
            .apply("Sum per pane", Sum.integersGlobally().withoutDefaults().asSingletonView());
    PCollection<String> out =
        all.apply("Main", org.apache.beam.sdk.transforms.Filter.by(kv -> kv.getKey().equals("main")))
            .apply("Main values", org.apache.beam.sdk.transforms.Values.create())
            .apply("Main windows", Window.into(FixedWindows.of(Duration.standardSeconds(10))))
            .apply("Read side", ParDo.of(new ReadSide(side)).withSideInputs(side));
    PAssert.that(out).containsInAnyOrder("10 saw 2");
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  @Test
  void anUnboundedReadFinishesWhenItsWatermarkReachesTheEnd() {
    // 3 splits of 0..29, at most 4 records per split and epoch: several epochs.
    Pipeline p = Pipelines.create("--epochMaxRecords=4");
    PCollection<Long> perWindow =
        p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
            .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
            .apply(Combine.globally(Count.<Long>combineFn()).withoutDefaults());
    PAssert.that(perWindow).containsInAnyOrder(10L, 10L, 10L);
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  static final class CountFn extends DoFn<Long, Long> {
    private final Counter seen = Metrics.counter(StreamingTest.class, "seen");

    @ProcessElement
    public void process(@Element Long x, OutputReceiver<Long> out) {
      seen.inc();
      out.output(x);
    }
  }

  @Test
  void cancelStopsAnEndlessPipelineAfterTheCurrentEpoch() throws Exception {
    Pipeline p = Pipelines.create("--blockOnRun=false", "--epochMaxRecords=50");
    p.apply(GenerateSequence.from(0)).apply(ParDo.of(new CountFn()));
    PipelineResult result = p.run();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (seen(result) < 200 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(seen(result), greaterThan(199L));
    assertThat(result.waitUntilFinish(Duration.millis(10)), equalTo(PipelineResult.State.RUNNING));
    assertThat(result.cancel(), equalTo(PipelineResult.State.CANCELLED));
    assertThat(result.waitUntilFinish(Duration.standardSeconds(60)), equalTo(PipelineResult.State.CANCELLED));
  }

  static final class TotalFn extends DoFn<Long, Long> {
    private final Counter total = Metrics.counter(StreamingTest.class, "total");

    @ProcessElement
    public void process(@Element Long count) {
      total.inc(count);
    }
  }

  /** Drained, the source stops and the open window fires with everything read: then DONE. */
  @Test
  void drainFiresTheOpenWindowsAndFinishes() throws Exception {
    Pipeline p = Pipelines.create("--blockOnRun=false", "--epochMaxRecords=50");
    p.apply(GenerateSequence.from(0))
        .apply(ParDo.of(new CountFn()))
        .apply(Window.into(FixedWindows.of(Duration.standardDays(1))))
        .apply(Combine.globally(Count.<Long>combineFn()).withoutDefaults())
        .apply(ParDo.of(new TotalFn()));
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (seen(result) < 200 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(counter(result, "total"), equalTo(0L));
    result.drain();
    assertThat(result.waitUntilFinish(Duration.standardSeconds(60)), equalTo(PipelineResult.State.DONE));
    assertThat(seen(result), greaterThan(199L));
    assertThat(counter(result, "total"), equalTo(seen(result)));
  }

  static final class CountWindowsFn extends DoFn<Long, Long> {
    private final Counter windows = Metrics.counter(StreamingTest.class, "windows");

    @ProcessElement
    public void process(@Element Long count) {
      windows.inc();
    }
  }

  private static PipelineResult windowsOverOneIdleSplit(String idleTimeout) {
    Pipeline p =
        Pipelines.create("--blockOnRun=false", "--epochMaxRecords=20", "--epochIdleWaitMillis=10", idleTimeout);
    p.apply(Read.from(new OneIdleSplitSource()))
        .apply(ParDo.of(new CountFn()))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(1))))
        .apply(Combine.globally(Count.<Long>combineFn()).withoutDefaults())
        .apply(ParDo.of(new CountWindowsFn()));
    return p.run();
  }

  /** With one split quiet for longer than --idleTimeoutMillis, the busy split's windows fire. */
  @Test
  void anIdleSplitDoesNotHoldBackTheBusyOnesWindows() throws Exception {
    PipelineResult result = windowsOverOneIdleSplit("--idleTimeoutMillis=300");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (counter(result, "windows") < 3 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long windows = counter(result, "windows");
    result.cancel();
    result.waitUntilFinish(Duration.standardSeconds(60));
    assertThat(windows, greaterThan(2L));
  }

  /** The same without idleness: the quiet split holds the watermark, and no window fires. */
  @Test
  void withoutIdlenessAQuietSplitHoldsEveryWindow() throws Exception {
    PipelineResult result = windowsOverOneIdleSplit("--idleTimeoutMillis=0");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    // 400 records span 40 windows of the busy split.
    while (seen(result) < 400 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(seen(result), greaterThan(399L));
    long windows = counter(result, "windows");
    result.cancel();
    result.waitUntilFinish(Duration.standardSeconds(60));
    assertThat(windows, equalTo(0L));
  }

  private static long seen(PipelineResult result) {
    return counter(result, "seen");
  }

  private static long counter(PipelineResult result, String name) {
    MetricQueryResults q =
        result.metrics().queryMetrics(
            MetricsFilter.builder().addNameFilter(MetricNameFilter.named(StreamingTest.class, name)).build());
    long n = 0;
    for (var c : q.getCounters()) {
      n += c.getCommitted();
    }
    return n;
  }

  /** Sums each key's values per window; an event-time timer at the window's end emits the sum. */
  static final class SumAtWindowEnd extends DoFn<KV<String, Integer>, KV<String, Integer>> {
    @StateId("sum")
    private final StateSpec<ValueState<Integer>> sum = StateSpecs.value();

    @StateId("key")
    private final StateSpec<ValueState<String>> key = StateSpecs.value();

    @TimerId("end")
    private final TimerSpec end = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<String, Integer> e,
        BoundedWindow window,
        @StateId("sum") ValueState<Integer> sum,
        @StateId("key") ValueState<String> key,
        @TimerId("end") Timer end) {
      Integer s = sum.read();
      sum.write((s == null ? 0 : s) + e.getValue());
      key.write(e.getKey());
      end.set(window.maxTimestamp());
    }

    @OnTimer("end")
    public void onEnd(
        @StateId("sum") ValueState<Integer> sum, @StateId("key") ValueState<String> key, OutputReceiver<KV<String, Integer>> out) {
      out.output(KV.of(key.read(), sum.read()));
    }
  }

  /**
   * State and timers across epochs: each key's sum per window grows over two epochs and is
   * emitted when the watermark passes the window; a timer's hold keeps the output on time for
   * the grouping after it.
   */
  @Test
  void statefulDoFnKeepsStateAndTimersAcrossEpochs() {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(TimestampedValue.of(KV.of("a", 1), sec(1)), TimestampedValue.of(KV.of("b", 2), sec(2)))
            .advanceWatermarkTo(sec(5))
            .addElements(TimestampedValue.of(KV.of("a", 3), sec(6)))
            .advanceWatermarkTo(sec(12))
            .addElements(TimestampedValue.of(KV.of("a", 10), sec(13)))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, Integer>> sums =
        p.apply(events)
            .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
            .apply("Sum at window end", ParDo.of(new SumAtWindowEnd()));
    PAssert.that(sums).inWindow(new IntervalWindow(sec(0), sec(10))).containsInAnyOrder(KV.of("a", 4), KV.of("b", 2));
    PAssert.that(sums).inWindow(new IntervalWindow(sec(10), sec(20))).containsInAnyOrder(KV.of("a", 10));
    PAssert.that(sums.apply("Total", Sum.integersPerKey()))
        .inWindow(new IntervalWindow(sec(0), sec(10)))
        .containsInAnyOrder(KV.of("a", 4), KV.of("b", 2));
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  /** Emits, per key, the values seen so far in the order the DoFn saw them. */
  static final class TimeSorted extends DoFn<KV<String, Integer>, String> {
    @StateId("seen")
    private final StateSpec<ValueState<String>> seenSpec = StateSpecs.value(StringUtf8Coder.of());

    @RequiresTimeSortedInput
    @ProcessElement
    public void process(
        @Element KV<String, Integer> e, @StateId("seen") ValueState<String> seen, OutputReceiver<String> out) {
      String before = seen.read();
      String now = before == null ? "" + e.getValue() : before + "," + e.getValue();
      seen.write(now);
      out.output(now);
    }
  }

  /**
   * Out-of-order elements of one key, over several epochs, reach a time-sorted DoFn in timestamp
   * order once the watermark passes them.
   */
  @Test
  void timeSortedInputIsSortedInStreaming() {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(TimestampedValue.of(KV.of("k", 3), sec(3)), TimestampedValue.of(KV.of("k", 1), sec(1)))
            .addElements(TimestampedValue.of(KV.of("k", 2), sec(2)))
            .advanceWatermarkTo(sec(4))
            .addElements(TimestampedValue.of(KV.of("k", 5), sec(5)))
            .advanceWatermarkToInfinity();
    PCollection<String> seen = p.apply(events).apply("Sorted", ParDo.of(new TimeSorted()));
    PAssert.that(seen).containsInAnyOrder("1", "1,2", "1,2,3", "1,2,3,5");
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  /**
   * A sum per key over sliding windows (10 s, every 5 s), which streaming combines on the map
   * side of its shuffle and keeps as one accumulator per key and window across epochs. The
   * TestStream's events are one epoch each: two epochs of elements, the watermark to 10 s (the
   * windows ending at 5 s and 10 s fire on time), a late element at 3 s within the allowed
   * lateness (both of its windows fire a late pane, accumulating), the end. Each sum follows from
   * the input: "a" at 1, 6, 8 s and late at 3 s; "b" at 7 s.
   */
  @Test
  void aSlidingWindowSumAddsUpAcrossEpochsAndFiresLatePanes() {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(
                TimestampedValue.of(KV.of("a", 1), sec(1)),
                TimestampedValue.of(KV.of("a", 2), sec(6)),
                TimestampedValue.of(KV.of("b", 10), sec(7)))
            .addElements(TimestampedValue.of(KV.of("a", 4), sec(8)))
            .advanceWatermarkTo(sec(10))
            .addElements(TimestampedValue.of(KV.of("a", 8), sec(3)))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, Integer>> sums =
        p.apply(events)
            .apply(
                Window.<KV<String, Integer>>into(SlidingWindows.of(Duration.standardSeconds(10)).every(Duration.standardSeconds(5)))
                    .withAllowedLateness(Duration.standardMinutes(1))
                    .accumulatingFiredPanes())
            .apply("Sum", Sum.integersPerKey());
    PAssert.that(sums.apply("Describe", ParDo.of(new DescribeSum())))
        .containsInAnyOrder(
            "a 1 ON_TIME, window ending 4999",
            "a 9 LATE, window ending 4999",
            "a 7 ON_TIME, window ending 9999",
            "a 15 LATE, window ending 9999",
            "a 6 ON_TIME, window ending 14999",
            "b 10 ON_TIME, window ending 9999",
            "b 10 ON_TIME, window ending 14999");
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  /**
   * A sum per key over sessions (gap 10 s, no allowed lateness), which streaming combines on the
   * map side, merging each partition's sessions, and merges again on the keyed side across
   * partitions and epochs. The TestStream's events are one epoch each:
   * <ol>
   *   <li>1 at 0 s and 2 at 5 s: the session [0 s, 15 s);
   *   <li>4 at 20 s: the session [20 s, 30 s), apart;
   *   <li>8 at 12 s: its window [12 s, 22 s) bridges both, so one session [0 s, 30 s) of 15;
   *   <li>the watermark to 31 s: that session fires on time, 15;
   *   <li>16 at 19 s, whose window [19 s, 29 s) has expired (it ends before the watermark):
   *       dropped, even though it overlaps the window of 32 at 22 s, [22 s, 32 s), which has not;
   *   <li>the end: the session [22 s, 32 s) fires on time, 32.
   * </ol>
   */
  @Test
  void aSessionSumMergesSessionsAcrossEpochsAndDropsExpiredElements() {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(TimestampedValue.of(KV.of("k", 1), sec(0)), TimestampedValue.of(KV.of("k", 2), sec(5)))
            .addElements(TimestampedValue.of(KV.of("k", 4), sec(20)))
            .addElements(TimestampedValue.of(KV.of("k", 8), sec(12)))
            .advanceWatermarkTo(sec(31))
            .addElements(TimestampedValue.of(KV.of("k", 16), sec(19)), TimestampedValue.of(KV.of("k", 32), sec(22)))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, Integer>> sums =
        p.apply(events)
            .apply(Window.into(Sessions.withGapDuration(Duration.standardSeconds(10))))
            .apply("Sum", Sum.integersPerKey());
    PAssert.that(sums.apply("Describe", ParDo.of(new DescribeSum())))
        .containsInAnyOrder("k 15 ON_TIME, window ending 29999", "k 32 ON_TIME, window ending 31999");
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }

  /**
   * A grouping runs its Spark job only in the epochs that have something for it: elements, or a
   * window that the watermark closes. The TestStream's events are one epoch each: elements (1),
   * three watermarks short of the window's end (2-4), the watermark past it (5), the end (6).
   * Epochs 2-4 run no job for the grouping; the window still fires in epoch 5, with the elements
   * of epoch 1, kept in state across the epochs it skipped.
   */
  @Test
  void aGroupingWithNothingDueRunsNoJob() throws Exception {
    Pipeline p = Pipelines.create();
    TestStream<KV<String, Integer>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .addElements(TimestampedValue.of(KV.of("a", 1), sec(1)), TimestampedValue.of(KV.of("a", 2), sec(2)))
            .advanceWatermarkTo(sec(3))
            .advanceWatermarkTo(sec(4))
            .advanceWatermarkTo(sec(5))
            .advanceWatermarkTo(sec(11))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, Iterable<Integer>>> grouped =
        p.apply(events)
            .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
            .apply("Group", org.apache.beam.sdk.transforms.GroupByKey.create());
    PCollection<String> panes = grouped.apply("Describe", ParDo.of(new DescribePane()));
    PAssert.that(panes).containsInAnyOrder("a [1, 2] ON_TIME, window ending 9999");

    EpochJobs jobs = new EpochJobs();
    WeirPipelineResult result = jobs.run(p);
    java.util.Set<Long> groupingEpochs = new java.util.HashSet<>();
    jobs.byEpoch.forEach((epoch, descriptions) -> {
      if (descriptions.contains("Group")) {
        groupingEpochs.add(epoch);
      }
    });
    assertThat(result.epochs(), equalTo(6L));
    assertThat(groupingEpochs, equalTo(java.util.Set.of(1L, 5L, 6L)));
  }

  /**
   * An epoch's leaves (here the two outputs of one DoFn, each counted by a step that emits
   * nothing) run in one Spark job, and each sees every element once: the sums of 0..29's even
   * and odd numbers, 210 and 225. The source reads at most 4 records per split and epoch, so the
   * pipeline takes several epochs with elements.
   */
  @Test
  void anEpochsLeavesRunInOneJob() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=4");
    org.apache.beam.sdk.values.TupleTag<Long> even = new org.apache.beam.sdk.values.TupleTag<>("even");
    org.apache.beam.sdk.values.TupleTag<Long> odd = new org.apache.beam.sdk.values.TupleTag<>("odd");
    org.apache.beam.sdk.values.PCollectionTuple split =
        p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
            .apply("Split", ParDo.of(new SplitByParity(even, odd)).withOutputTags(even, org.apache.beam.sdk.values.TupleTagList.of(odd)));
    split.get(even).apply("Sum even", ParDo.of(new SumFn("even")));
    split.get(odd).setCoder(org.apache.beam.sdk.coders.VarLongCoder.of()).apply("Sum odd", ParDo.of(new SumFn("odd")));

    EpochJobs epochJobs = new EpochJobs();
    PipelineResult result = epochJobs.run(p);
    java.util.Map<Long, java.util.List<String>> leafJobs = new java.util.HashMap<>();
    epochJobs.byEpoch.forEach((epoch, descriptions) -> {
      for (String description : descriptions) {
        if (description.contains("Sum ")) {
          leafJobs.computeIfAbsent(epoch, k -> new java.util.ArrayList<>()).add(description);
        }
      }
    });
    assertThat(sum(result, "even"), equalTo(210L));
    assertThat(sum(result, "odd"), equalTo(225L));
    assertThat(leafJobs.size(), greaterThan(1));
    for (java.util.List<String> jobs : leafJobs.values()) {
      assertThat(jobs.size(), equalTo(1));
      assertThat(jobs.get(0), containsString("Sum even"));
      assertThat(jobs.get(0), containsString("Sum odd"));
    }
  }

  /**
   * A source with only stateless steps after it is read within the epoch's leaves job: each epoch
   * runs one Spark job, not one reading and another processing. 3 splits of 0..29, 10 records
   * each, at most 4 per split and epoch: 3 epochs, the third reading each split's last 2 records,
   * after which each reader's watermark is at the end of time; the source reports it as that job
   * ends, so the pipeline finishes in that epoch. Every element is seen once: 0..29 sum to 435.
   */
  @Test
  void aSourceWithOnlyStatelessStepsAfterItIsReadInTheLeavesJob() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=4", "--sourceSplits=3");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
        .apply("Sum all", ParDo.of(new SumFn("all")));

    EpochJobs jobs = new EpochJobs();
    WeirPipelineResult result = jobs.run(p);
    assertThat(sum(result, "all"), equalTo(435L));
    assertThat(result.epochs(), equalTo(3L));
    assertThat(jobs.byEpoch.keySet(), equalTo(java.util.Set.of(1L, 2L, 3L)));
    for (java.util.List<String> epochJobs : jobs.byEpoch.values()) {
      assertThat(epochJobs, contains(containsString("Sum all")));
    }
  }

  /**
   * A grouping followed only by stateless steps runs within the epoch's leaves job: an epoch
   * runs no job for the grouping alone, only the leaves job that runs its partitions on the way.
   * One split of 0..29 (value i at i seconds, the watermark at the next value), at most 4 records
   * an epoch, keyed by parity, in 10 s windows: 3 windows of 2 keys, 6 panes, each on time (the
   * watermark is exact), and every value in one of them: 0..29 sum to 435.
   */
  @Test
  void aGroupingWithOnlyStatelessStepsAfterItRunsInTheLeavesJob() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=4", "--sourceSplits=1");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
        .apply(WithKeys.of((Long x) -> x % 2).withKeyType(org.apache.beam.sdk.values.TypeDescriptors.longs()))
        .apply("Group", org.apache.beam.sdk.transforms.GroupByKey.create())
        .apply("Sum panes", ParDo.of(new SumPanes()));

    EpochJobs jobs = new EpochJobs();
    WeirPipelineResult result = jobs.run(p);
    assertThat(sum(result, "grouped"), equalTo(435L));
    assertThat(sum(result, "on-time panes"), equalTo(6L));
    java.util.Set<Long> groupingEpochs = new java.util.HashSet<>();
    jobs.byEpoch.forEach((epoch, descriptions) -> {
      for (String description : descriptions) {
        if (description.contains("Group")) {
          groupingEpochs.add(epoch);
          assertThat(description, containsString("Sum panes"));
        }
      }
    });
    assertThat(groupingEpochs.size(), greaterThan(1));
  }

  /**
   * A stateful DoFn followed only by stateless steps runs within the epoch's leaves job, and its
   * state carries over between epochs as in a job of its own. One split of 0..29, at most 4
   * records an epoch, keyed by parity: each key's 15 elements are numbered 1..15 in turn, so the
   * numbers sum to 2 x 120 = 240, two elements get number 15, and the values sum to 435.
   */
  @Test
  void aStatefulDoFnWithOnlyStatelessStepsAfterItRunsInTheLeavesJob() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=4", "--sourceSplits=1");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
        .apply(WithKeys.of((Long x) -> x % 2).withKeyType(org.apache.beam.sdk.values.TypeDescriptors.longs()))
        .apply("Number", ParDo.of(new NumberPerKey()))
        .apply("Sum numbered", ParDo.of(new SumNumbered()));

    EpochJobs jobs = new EpochJobs();
    WeirPipelineResult result = jobs.run(p);
    assertThat(sum(result, "numbered values"), equalTo(435L));
    assertThat(sum(result, "numbers"), equalTo(240L));
    assertThat(sum(result, "fifteenths"), equalTo(2L));
    java.util.Set<Long> statefulEpochs = new java.util.HashSet<>();
    jobs.byEpoch.forEach((epoch, descriptions) -> {
      for (String description : descriptions) {
        if (description.contains("Number/")) {
          statefulEpochs.add(epoch);
          assertThat(description, containsString("Sum numbered"));
        }
      }
    });
    assertThat(statefulEpochs.size(), greaterThan(1));
  }

  /** Numbers each key's elements 1, 2, ... in the order it sees them: the value and its number. */
  private static final class NumberPerKey extends DoFn<KV<Long, Long>, KV<Long, Long>> {
    @StateId("seen")
    private final StateSpec<ValueState<Long>> seen = StateSpecs.value(org.apache.beam.sdk.coders.VarLongCoder.of());

    @ProcessElement
    public void process(@Element KV<Long, Long> element, @StateId("seen") ValueState<Long> seen, OutputReceiver<KV<Long, Long>> out) {
      Long before = seen.read();
      long n = before == null ? 1 : before + 1;
      seen.write(n);
      out.output(KV.of(element.getValue(), n));
    }
  }

  /** Sums the numbered values and their numbers, and counts the fifteenth elements. */
  private static final class SumNumbered extends DoFn<KV<Long, Long>, Void> {
    private final Counter values = Metrics.counter(StreamingTest.class, "numbered values");
    private final Counter numbers = Metrics.counter(StreamingTest.class, "numbers");
    private final Counter fifteenths = Metrics.counter(StreamingTest.class, "fifteenths");

    @ProcessElement
    public void process(@Element KV<Long, Long> numbered) {
      values.inc(numbered.getKey());
      numbers.inc(numbered.getValue());
      if (numbered.getValue() == 15) {
        fifteenths.inc();
      }
    }
  }

  /** Sums the values of each pane, and counts the on-time panes. */
  private static final class SumPanes extends DoFn<KV<Long, Iterable<Long>>, Void> {
    private final Counter grouped = Metrics.counter(StreamingTest.class, "grouped");
    private final Counter onTime = Metrics.counter(StreamingTest.class, "on-time panes");

    @ProcessElement
    public void process(@Element KV<Long, Iterable<Long>> pane, PaneInfo info) {
      for (long x : pane.getValue()) {
        grouped.inc(x);
      }
      if (info.getTiming() == PaneInfo.Timing.ON_TIME) {
        onTime.inc();
      }
    }
  }

  /**
   * Executors keep a stateless DoFn's instances across epochs: Beam lets one instance serve many
   * bundles, one at a time, so {@code @Setup} runs at most once per bundle that runs at the same
   * time (local[2]: two), not once per epoch and partition (here 3 splits and about 10 epochs);
   * every instance is torn down once the run ends. Each element is seen once: the sum of 0..29 is
   * 435.
   */
  @Test
  void aDoFnIsSetUpOncePerConcurrentBundleAndTornDownAtTheEnd() throws Exception {
    LifecycleFn.SETUPS.set(0);
    LifecycleFn.TEARDOWNS.set(0);
    LifecycleFn.BUNDLES.set(0);
    Pipeline p = Pipelines.create("--epochMaxRecords=1");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1))).apply("Lifecycle", ParDo.of(new LifecycleFn()));
    PipelineResult result = p.run();
    assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
    assertThat(sum(result, "lifecycle"), equalTo(435L));
    assertThat(LifecycleFn.BUNDLES.get(), greaterThan(10));
    assertThat(LifecycleFn.SETUPS.get(), org.hamcrest.Matchers.lessThanOrEqualTo(2));
    assertThat(LifecycleFn.TEARDOWNS.get(), equalTo(LifecycleFn.SETUPS.get()));
  }

  /**
   * The driver builds what a step's tasks need once per run, not every epoch: the DoFn is
   * serialized (for its tasks, and into Beam's pipeline proto for its schema and side-input
   * mapping) a few times in all, fewer than the run has epochs (about 10 here), where building
   * it every epoch serialized it at least twice an epoch.
   */
  @Test
  void aStepsDoFnIsSerializedForTheRunNotForEachEpoch() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=1");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1))).apply("Lifecycle", ParDo.of(new LifecycleFn()));
    LifecycleFn.SERIALIZED.set(0);
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
    assertThat(sum(result, "lifecycle"), equalTo(435L));
    assertThat(result.epochs(), greaterThan(8L));
    assertThat((long) LifecycleFn.SERIALIZED.get(), org.hamcrest.Matchers.lessThan(result.epochs()));
  }

  /**
   * A Combine's step is built once per run too: its accumulator coder is asked for a few times
   * in all (by Beam as the pipeline is built, and once as the step's operator opens), fewer than
   * the run has epochs, where building the step every epoch asked at least once an epoch. The
   * sums still come out whole: 0..29 sum to 435.
   */
  @Test
  void aCombinesAccumulatorCoderIsBuiltForTheRunNotForEachEpoch() throws Exception {
    Pipeline p = Pipelines.create("--epochMaxRecords=1");
    p.apply(Read.from(new FiniteUnboundedSource(0, 30, 1)))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(10))))
        .apply(WithKeys.of((Long x) -> x % 2).withKeyType(org.apache.beam.sdk.values.TypeDescriptors.longs()))
        .apply("Sum", Combine.perKey(new SumAskingForCoders()))
        .apply("Add up", ParDo.of(new AddUpSums()));
    SumAskingForCoders.ACCUMULATOR_CODERS.set(0);
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
    assertThat(sum(result, "sums"), equalTo(435L));
    assertThat(result.epochs(), greaterThan(8L));
    assertThat((long) SumAskingForCoders.ACCUMULATOR_CODERS.get(), org.hamcrest.Matchers.lessThan(result.epochs()));
  }

  /** Sums longs, counting how often it is asked for its accumulator coder. */
  private static final class SumAskingForCoders extends Combine.CombineFn<Long, long[], Long> {
    static final java.util.concurrent.atomic.AtomicInteger ACCUMULATOR_CODERS = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public long[] createAccumulator() {
      return new long[1];
    }

    @Override
    public long[] addInput(long[] sum, Long x) {
      sum[0] += x;
      return sum;
    }

    @Override
    public long[] mergeAccumulators(Iterable<long[]> sums) {
      long[] merged = new long[1];
      for (long[] sum : sums) {
        merged[0] += sum[0];
      }
      return merged;
    }

    @Override
    public Long extractOutput(long[] sum) {
      return sum[0];
    }

    @Override
    public org.apache.beam.sdk.coders.Coder<long[]> getAccumulatorCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, org.apache.beam.sdk.coders.Coder<Long> inputCoder) {
      ACCUMULATOR_CODERS.incrementAndGet();
      return org.apache.beam.sdk.coders.DelegateCoder.of(
          org.apache.beam.sdk.coders.VarLongCoder.of(), (long[] sum) -> sum[0], (Long x) -> new long[] {x});
    }
  }

  /** Adds up the sums it receives. */
  private static final class AddUpSums extends DoFn<KV<Long, Long>, Void> {
    private final Counter sums = Metrics.counter(StreamingTest.class, "sums");

    @ProcessElement
    public void process(@Element KV<Long, Long> sum) {
      sums.inc(sum.getValue());
    }
  }

  /** Counts its set-ups, bundles, teardowns and serializations in this JVM (embedded Spark's executor). */
  private static final class LifecycleFn extends DoFn<Long, Void> {
    static final java.util.concurrent.atomic.AtomicInteger SERIALIZED = new java.util.concurrent.atomic.AtomicInteger();
    static final java.util.concurrent.atomic.AtomicInteger SETUPS = new java.util.concurrent.atomic.AtomicInteger();
    static final java.util.concurrent.atomic.AtomicInteger BUNDLES = new java.util.concurrent.atomic.AtomicInteger();
    static final java.util.concurrent.atomic.AtomicInteger TEARDOWNS = new java.util.concurrent.atomic.AtomicInteger();
    private final Counter sum = Metrics.counter(StreamingTest.class, "lifecycle");

    @Setup
    public void setup() {
      SETUPS.incrementAndGet();
    }

    @StartBundle
    public void startBundle() {
      BUNDLES.incrementAndGet();
    }

    @ProcessElement
    public void process(@Element Long x) {
      sum.inc(x);
    }

    @Teardown
    public void teardown() {
      TEARDOWNS.incrementAndGet();
    }

    private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
      SERIALIZED.incrementAndGet();
      out.defaultWriteObject();
    }
  }

  /** The Spark jobs of each epoch of a run, by epoch: their descriptions (the Beam steps they run). */
  private static final class EpochJobs extends org.apache.spark.scheduler.SparkListener {
    final java.util.Map<Long, java.util.List<String>> byEpoch = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart job) {
      String group = job.properties().getProperty("spark.jobGroup.id", "");
      int at = group.lastIndexOf("-epoch-");
      if (at >= 0) {
        byEpoch.computeIfAbsent(Long.parseLong(group.substring(at + 7)), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
            .add(job.properties().getProperty("spark.job.description", ""));
      }
    }

    /** Runs {@code p} until it is done, recording its epochs' jobs. */
    WeirPipelineResult run(Pipeline p) throws Exception {
      org.apache.spark.SparkContext sc = SparkSessions.getOrCreate(Pipelines.options()).sparkContext();
      sc.addSparkListener(this);
      try {
        WeirPipelineResult result = (WeirPipelineResult) p.run();
        assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
        sc.listenerBus().waitUntilEmpty(10_000);
        return result;
      } finally {
        sc.removeSparkListener(this);
      }
    }
  }

  private static long sum(PipelineResult result, String name) {
    return result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named(StreamingTest.class, name)).build())
        .getCounters()
        .iterator()
        .next()
        .getAttempted();
  }

  /** Even numbers to {@code even} (the main output), odd ones to {@code odd}. */
  private static final class SplitByParity extends DoFn<Long, Long> {
    private final org.apache.beam.sdk.values.TupleTag<Long> even;
    private final org.apache.beam.sdk.values.TupleTag<Long> odd;

    SplitByParity(org.apache.beam.sdk.values.TupleTag<Long> even, org.apache.beam.sdk.values.TupleTag<Long> odd) {
      this.even = even;
      this.odd = odd;
    }

    @ProcessElement
    public void process(@Element Long x, MultiOutputReceiver out) {
      out.get(x % 2 == 0 ? even : odd).output(x);
    }
  }

  /** Adds its elements to a counter, and emits nothing. */
  private static final class SumFn extends DoFn<Long, Void> {
    private final Counter sum;

    SumFn(String name) {
      sum = Metrics.counter(StreamingTest.class, name);
    }

    @ProcessElement
    public void process(@Element Long x) {
      sum.inc(x);
    }
  }

  /** A pane as text: key, values in order, timing, and its window's end. */
  private static final class DescribePane extends DoFn<KV<String, Iterable<Integer>>, String> {
    @ProcessElement
    public void process(ProcessContext c, BoundedWindow window) {
      java.util.List<Integer> values = new java.util.ArrayList<>();
      c.element().getValue().forEach(values::add);
      java.util.Collections.sort(values);
      c.output(c.element().getKey() + " " + values + " " + c.pane().getTiming() + ", window ending "
          + window.maxTimestamp().getMillis());
    }
  }

  private static final class DescribeSum extends DoFn<KV<String, Integer>, String> {
    @ProcessElement
    public void process(ProcessContext c, BoundedWindow window) {
      c.output(c.element().getKey() + " " + c.element().getValue() + " " + c.pane().getTiming() + ", window ending "
          + window.maxTimestamp().getMillis());
    }
  }
}
