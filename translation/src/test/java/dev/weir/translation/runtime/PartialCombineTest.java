package dev.weir.translation.runtime;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;

import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The map side of a Combine with sessions (gap 5 s, Beam's {@code Sessions}): each element's own
 * window is [t, t + 5 s), and a key's overlapping windows merge into their union, one sum each.
 */
class PartialCombineTest {
  private static final Sessions SESSIONS = Sessions.withGapDuration(Duration.standardSeconds(5));

  @Test
  void aKeysOverlappingWindowsMergeIntoOneAccumulator() {
    // "a" at 1 s and 3 s: [1, 6) and [3, 8) overlap, so [1, 8) with 1 + 2; "a" at 20 s stays
    // apart, [20, 25); "b" at 2 s is another key, [2, 7).
    List<String> partials =
        partials(
            new PartialCombine.Merging(SESSIONS, BoundedWindow.TIMESTAMP_MIN_VALUE, Duration.ZERO),
            element("a", 1, 1),
            element("b", 10, 2),
            element("a", 4, 20),
            element("a", 2, 3));
    assertThat(partials, containsInAnyOrder("a [1-8) 3", "a [20-25) 4", "b [2-7) 10"));
  }

  @Test
  void aWindowThatHasExpiredIsNotMerged() {
    // The keyed side's input watermark is at 7 s, with no allowed lateness. [1, 6) and [2, 7)
    // ended before it: they stay as they are, for the keyed side to drop as late. [3, 8) has not,
    // and does not take them in.
    List<String> partials =
        partials(
            new PartialCombine.Merging(SESSIONS, new Instant(7_000), Duration.ZERO),
            element("a", 1, 1),
            element("a", 2, 3),
            element("a", 4, 2));
    assertThat(partials, containsInAnyOrder("a [1-6) 1", "a [2-7) 4", "a [3-8) 2"));
  }

  @Test
  void allowedLatenessKeepsAWindowMerging() {
    // The same input with 2 s of allowed lateness: [1, 6) and [2, 7) are kept until 8 s and 9 s
    // (their last timestamps, 5.999 s and 6.999 s, plus 2 s), so they are still open at 7 s.
    List<String> partials =
        partials(
            new PartialCombine.Merging(SESSIONS, new Instant(7_000), Duration.standardSeconds(2)),
            element("a", 1, 1),
            element("a", 2, 3),
            element("a", 4, 2));
    assertThat(partials, containsInAnyOrder("a [1-8) 7"));
  }

  @SafeVarargs
  private static List<String> partials(PartialCombine.Merging merging, WindowedValue<KV<Object, Object>>... elements) {
    KeyWindowCombiner combiner =
        new KeyWindowCombiner(
            "Sum",
            Sum.ofIntegers(),
            new SerializablePipelineOptions(PipelineOptionsFactory.create()),
            TimestampCombiner.END_OF_WINDOW);
    @SuppressWarnings({"unchecked", "rawtypes"})
    PartialCombine partial =
        new PartialCombine(
            List.of(elements).iterator(),
            combiner,
            (Coder) StringUtf8Coder.of(),
            (Coder) IntervalWindow.getCoder(),
            PartialCombine.MAX_ENTRIES,
            merging);
    List<String> out = new ArrayList<>();
    while (partial.hasNext()) {
      CombineBuffer buffer = partial.next();
      IntervalWindow window = (IntervalWindow) buffer.window;
      out.add(buffer.key + " [" + window.start().getMillis() / 1000 + "-" + window.end().getMillis() / 1000 + ") "
          + Sum.ofIntegers().extractOutput((int[]) buffer.accumulator));
    }
    return out;
  }

  /** {@code value} of {@code key} at {@code second} s, in its own session window. */
  private static WindowedValue<KV<Object, Object>> element(String key, int value, int second) {
    Instant at = new Instant(second * 1000L);
    IntervalWindow window = new IntervalWindow(at, Duration.standardSeconds(5));
    return WindowedValues.of(KV.of(key, value), at, window, PaneInfo.NO_FIRING);
  }
}
