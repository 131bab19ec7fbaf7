package dev.weir.translation.streaming;

import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * An unbounded source's watermark from its splits': the least of the splits that are neither done
 * (their watermark at the end of time) nor idle. A split is idle when it has neither read a record
 * nor moved its watermark for {@code --idleTimeoutMillis} (0: never); it leaves the minimum until
 * it reads again, so one quiet partition does not stop the pipeline's event time. When every split
 * still running is idle, the source is idle: nothing moves its watermark now.
 */
final class SourceWatermark {
  private SourceWatermark() {}

  /**
   * @param watermarks each split's watermark
   * @param lastProgress for each split, the processing time (ms) of its last record or watermark move
   * @param now the epoch's processing time (ms)
   * @return the source's watermark, or null if the source is idle (it then keeps the one it had)
   */
  static @Nullable Instant of(Instant[] watermarks, long[] lastProgress, long now, long idleTimeoutMillis) {
    Instant watermark = null;
    boolean running = false;
    for (int i = 0; i < watermarks.length; i++) {
      boolean done = !watermarks[i].isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      running |= !done;
      if (done || !idle(lastProgress[i], now, idleTimeoutMillis)) {
        if (watermark == null || watermarks[i].isBefore(watermark)) {
          watermark = watermarks[i];
        }
      }
    }
    if (watermark == null || (running && !watermark.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE))) {
      return null;
    }
    return watermark;
  }

  private static boolean idle(long lastProgress, long now, long idleTimeoutMillis) {
    return idleTimeoutMillis > 0 && now - lastProgress >= idleTimeoutMillis;
  }
}
