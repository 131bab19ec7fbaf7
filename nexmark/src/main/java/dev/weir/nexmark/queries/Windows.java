package dev.weir.nexmark.queries;

import java.util.ArrayList;
import java.util.List;

/** Window arithmetic for the reference models, independent of Beam's WindowFns. */
final class Windows {
  private Windows() {}

  /** Start of the fixed window of {@code sizeMs} holding {@code timestampMs}. */
  static long fixedStart(long timestampMs, long sizeMs) {
    return timestampMs - Math.floorMod(timestampMs, sizeMs);
  }

  /** Starts of the sliding windows of {@code sizeMs} every {@code periodMs} holding a timestamp. */
  static List<Long> slidingStarts(long timestampMs, long sizeMs, long periodMs) {
    List<Long> starts = new ArrayList<>();
    long last = timestampMs - Math.floorMod(timestampMs, periodMs);
    for (long start = last; start > timestampMs - sizeMs; start -= periodMs) {
      starts.add(start);
    }
    return starts;
  }
}
