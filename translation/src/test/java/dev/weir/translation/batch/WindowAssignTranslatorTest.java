package dev.weir.translation.batch;

import dev.weir.translation.TestSpark;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class WindowAssignTranslatorTest implements java.io.Serializable {
  @Test
  void assignsEveryWindowOfTheWindowFnKeepingTimestamps() {
    Pipeline p = TestSpark.pipeline();
    PCollection<String> out =
        p.apply(Create.timestamped(TimestampedValue.of("x", new Instant(7))))
            .apply(Window.into(SlidingWindows.of(Duration.millis(10)).every(Duration.millis(5))))
            .apply(
                ParDo.of(
                    new DoFn<String, String>() {
                      @ProcessElement
                      public void process(ProcessContext c, BoundedWindow w) {
                        IntervalWindow iw = (IntervalWindow) w;
                        c.output(c.element() + "@" + c.timestamp().getMillis() + " in "
                            + iw.start().getMillis() + ".." + iw.end().getMillis());
                      }
                    }));
    PAssert.that(out).containsInAnyOrder("x@7 in 0..10", "x@7 in 5..15");
    TestSpark.run(p);
  }
}
