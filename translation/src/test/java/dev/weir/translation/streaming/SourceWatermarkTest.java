package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A source's watermark from its splits', and their idleness, as {@code --idleTimeoutMillis}
 * documents it: a split that neither read nor moved its watermark for the timeout leaves the
 * minimum; a source whose running splits are all idle is idle.
 */
class SourceWatermarkTest {
  private static final Instant END = BoundedWindow.TIMESTAMP_MAX_VALUE;

  private static Instant at(long millis) {
    return new Instant(millis);
  }

  @Test
  void isTheLeastOfTheSplitsWatermarks() {
    assertThat(SourceWatermark.of(new Instant[] {at(30), at(10), at(20)}, new long[] {1000, 1000, 1000}, 1500, 1000), equalTo(at(10)));
  }

  @Test
  void aSplitWithoutProgressForTheIdleTimeoutLeavesTheMinimum() {
    Instant[] watermarks = {at(10), at(50)};
    // The first split last read at 0: at 999 it is 1 ms short of the timeout, at 1000 idle.
    assertThat(SourceWatermark.of(watermarks, new long[] {0, 900}, 999, 1000), equalTo(at(10)));
    assertThat(SourceWatermark.of(watermarks, new long[] {0, 900}, 1000, 1000), equalTo(at(50)));
  }

  @Test
  void aSourceWhoseRunningSplitsAreAllIdleIsIdleThoughAnotherIsDone() {
    assertThat(SourceWatermark.of(new Instant[] {at(10), END}, new long[] {0, 0}, 5000, 1000), nullValue());
    assertThat(SourceWatermark.of(new Instant[] {at(10), at(20)}, new long[] {0, 0}, 5000, 1000), nullValue());
  }

  @Test
  void aSourceWhoseSplitsAreAllDoneIsAtTheEndOfTime() {
    assertThat(SourceWatermark.of(new Instant[] {END, END}, new long[] {0, 0}, 5000, 1000), equalTo(END));
  }

  @Test
  void aTimeoutOfZeroMakesNoSplitIdle() {
    assertThat(SourceWatermark.of(new Instant[] {at(10), at(50)}, new long[] {0, 0}, 1_000_000, 0), equalTo(at(10)));
  }
}
