package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;

import dev.weir.translation.Overrides;
import dev.weir.translation.PipelineTranslator;
import dev.weir.translation.TestSpark;
import dev.weir.translation.TimePolicies;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.MergeOverlappingIntervalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which streaming {@code Combine.PerKey} is combined on the map side, and which runs as its
 * expansion because combining first could change its panes (Beam's model: a trigger counting
 * elements, timestamps other than the window's end, merging windows other than sessions).
 */
class CombinePerKeyStreamingTranslatorTest {

  private static String plan(Window<KV<String, Integer>> window) {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> input =
        p.apply(TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of())).advanceWatermarkToInfinity());
    input.apply(window).apply("Sum", Sum.integersPerKey());
    Overrides.apply(p);
    return PipelineTranslator.check(p, TimePolicies.streamingDefaults(), StreamingTranslators.INSTANCE).explain();
  }

  private static List<String> lines(String plan) {
    return List.of(plan.split("\n"));
  }

  @Test
  void slidingWindowsAreCombinedOnTheMapSide() {
    String plan = plan(Window.into(SlidingWindows.of(Duration.standardSeconds(10)).every(Duration.standardSeconds(5))));
    assertThat(lines(plan), hasItem("Sum -> CombinePerKeyStreamingTranslator"));
  }

  @Test
  void aWatermarkTriggerWithLateFiringsIsCombinedOnTheMapSide() {
    String plan =
        plan(
            Window.<KV<String, Integer>>into(FixedWindows.of(Duration.standardSeconds(10)))
                .triggering(AfterWatermark.pastEndOfWindow().withLateFirings(AfterWatermark.pastEndOfWindow()))
                .withAllowedLateness(Duration.standardMinutes(1))
                .accumulatingFiredPanes());
    assertThat(lines(plan), hasItem("Sum -> CombinePerKeyStreamingTranslator"));
  }

  @Test
  void aTriggerThatCountsElementsRunsTheExpansion() {
    String plan =
        plan(
            Window.<KV<String, Integer>>into(FixedWindows.of(Duration.standardSeconds(10)))
                .triggering(AfterWatermark.pastEndOfWindow().withEarlyFirings(AfterPane.elementCountAtLeast(2)))
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes());
    assertThat(lines(plan), hasItem("Sum/GroupByKey -> GroupByKeyStreamingTranslator"));
  }

  /** At least one element, a grouping's continuation trigger, is at least one partial accumulator. */
  @Test
  void aTriggerOnTheFirstElementIsCombinedOnTheMapSide() {
    String plan =
        plan(
            Window.<KV<String, Integer>>into(FixedWindows.of(Duration.standardSeconds(10)))
                .triggering(Repeatedly.forever(AfterPane.elementCountAtLeast(1)))
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes());
    assertThat(lines(plan), hasItem("Sum -> CombinePerKeyStreamingTranslator"));
  }

  @Test
  void anEarliestTimestampRunsTheExpansion() {
    String plan =
        plan(Window.<KV<String, Integer>>into(FixedWindows.of(Duration.standardSeconds(10))).withTimestampCombiner(TimestampCombiner.EARLIEST));
    assertThat(lines(plan), hasItem("Sum/GroupByKey -> GroupByKeyStreamingTranslator"));
  }

  @Test
  void sessionsAreCombinedOnTheMapSide() {
    String plan = plan(Window.into(Sessions.withGapDuration(Duration.standardSeconds(10))));
    assertThat(lines(plan), hasItem("Sum -> CombinePerKeyStreamingTranslator"));
  }

  @Test
  void anotherMergingWindowFnRunsTheExpansion() {
    String plan = plan(Window.into(new PointSessions()));
    assertThat(lines(plan), hasItem("Sum/GroupByKey -> GroupByKeyStreamingTranslator"));
  }

  /**
   * A merging WindowFn other than Sessions: its merging is its own, so windows merged per
   * partition might not merge again as all the elements' windows would.
   */
  private static final class PointSessions extends WindowFn<Object, IntervalWindow> {
    @Override
    public Collection<IntervalWindow> assignWindows(AssignContext c) {
      return List.of(new IntervalWindow(c.timestamp(), Duration.millis(1)));
    }

    @Override
    public void mergeWindows(MergeContext c) throws Exception {
      MergeOverlappingIntervalWindows.mergeWindows(c);
    }

    @Override
    public boolean isCompatible(WindowFn<?, ?> other) {
      return other instanceof PointSessions;
    }

    @Override
    public Coder<IntervalWindow> windowCoder() {
      return IntervalWindow.getCoder();
    }

    @Override
    public WindowMappingFn<IntervalWindow> getDefaultWindowMappingFn() {
      throw new UnsupportedOperationException("not a side input");
    }
  }
}
