package dev.weir.nexmark.reference;

import java.util.ArrayList;
import java.util.List;

/**
 * Which event-time windows hold a timestamp, by Beam's definitions (windows aligned to the
 * epoch, start inclusive, end exclusive), for the models; Beam's WindowFns are not used here.
 */
final class WindowMath {
  private WindowMath() {}

  /** Start of the fixed window of {@code sizeMs} holding {@code timestampMs}. */
  static long fixedStart(long timestampMs, long sizeMs) {
    return Math.floorDiv(timestampMs, sizeMs) * sizeMs;
  }

  /** Starts of every sliding window of {@code sizeMs}, one every {@code periodMs}, holding the timestamp. */
  static List<Long> slidingStarts(long timestampMs, long sizeMs, long periodMs) {
    List<Long> starts = new ArrayList<>();
    for (long start = fixedStart(timestampMs, periodMs); start + sizeMs > timestampMs; start -= periodMs) {
      starts.add(start);
    }
    return starts;
  }
}
