package dev.weir.translation.streaming;

import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/** Watermarks as people read them in logs: the two ends of time by name. */
final class WatermarkText {
  private WatermarkText() {}

  static String of(Instant t) {
    if (!t.isAfter(BoundedWindow.TIMESTAMP_MIN_VALUE)) {
      return "-inf";
    }
    if (!t.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
      return "+inf";
    }
    return t.toString();
  }
}
