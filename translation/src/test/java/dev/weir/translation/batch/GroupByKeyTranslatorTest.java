package dev.weir.translation.batch;

import dev.weir.translation.TestSpark;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class GroupByKeyTranslatorTest implements java.io.Serializable {

  /** Formats each pane as "key window-start..end @timestamp [sorted values]". */
  static final class Describe extends DoFn<KV<String, Iterable<Integer>>, String> {
    @ProcessElement
    public void process(ProcessContext c, org.apache.beam.sdk.transforms.windowing.BoundedWindow w) {
      List<Integer> values = new ArrayList<>();
      c.element().getValue().forEach(values::add);
      values.sort(null);
      String window =
          w instanceof IntervalWindow
              ? ((IntervalWindow) w).start().getMillis() + ".." + ((IntervalWindow) w).end().getMillis()
              : "global";
      c.output(c.element().getKey() + " " + window + " @" + c.timestamp().getMillis() + " " + values
          + " " + c.pane().getTiming());
    }
  }

  @Test
  void fixedWindowsEndOfWindowTimestamps() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out =
        TestInputs.keyed(p).apply(Window.into(FixedWindows.of(Duration.millis(10))))
            .apply(GroupByKey.create())
            .apply(ParDo.of(new Describe()));
    PAssert.that(out).containsInAnyOrder(
        "a 0..10 @9 [1, 2] ON_TIME", "a 10..20 @19 [3] ON_TIME", "b 0..10 @9 [4] ON_TIME");
    TestSpark.run(p);
  }

  @Test
  void slidingWindowsWithEarliestTimestamp() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out =
        TestInputs.keyed(p).apply(
                Window.<KV<String, Integer>>into(SlidingWindows.of(Duration.millis(10)).every(Duration.millis(5)))
                    .withTimestampCombiner(TimestampCombiner.EARLIEST))
            .apply(GroupByKey.create())
            .apply(ParDo.of(new Describe()));
    PAssert.that(out).containsInAnyOrder(
        "a -5..5 @1 [1, 2] ON_TIME",
        "a 0..10 @1 [1, 2] ON_TIME",
        "a 5..15 @12 [3] ON_TIME",
        "a 10..20 @12 [3] ON_TIME",
        "b -5..5 @3 [4] ON_TIME",
        "b 0..10 @3 [4] ON_TIME");
    TestSpark.run(p);
  }

  @Test
  void sessionsMergePerKeyWithLatestTimestamp() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out =
        TestInputs.keyed(p).apply(
                Window.<KV<String, Integer>>into(Sessions.withGapDuration(Duration.millis(5)))
                    .withTimestampCombiner(TimestampCombiner.LATEST))
            .apply(GroupByKey.create())
            .apply(ParDo.of(new Describe()));
    PAssert.that(out).containsInAnyOrder(
        "a 1..9 @4 [1, 2] ON_TIME", "a 12..17 @12 [3] ON_TIME", "b 3..8 @3 [4] ON_TIME");
    TestSpark.run(p);
  }

  @Test
  void globalWindow() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out = TestInputs.keyed(p).apply(GroupByKey.create()).apply(ParDo.of(new Describe()));
    PAssert.that(out).containsInAnyOrder(
        "a global @9223371950454775 [1, 2, 3] ON_TIME", "b global @9223371950454775 [4] ON_TIME");
    TestSpark.run(p);
  }
}
