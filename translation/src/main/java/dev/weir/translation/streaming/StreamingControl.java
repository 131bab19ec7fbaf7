package dev.weir.translation.streaming;

import java.util.Map;

/** How the owner of a streaming run steers it and hears from it, between epochs. */
public interface StreamingControl {
  /** Stop after the current epoch, as it is (cancel). */
  boolean stopRequested();

  /**
   * Stop reading: every source's watermark goes to the end of time, so the remaining windows
   * fire and the pipeline finishes (drain).
   */
  boolean drainRequested();

  /** Called after each epoch, on the driver thread, with every step's watermarks. */
  void afterEpoch(long epoch, Map<String, OperatorWatermarks> watermarks);
}
