package dev.weir.translation.streaming;

import org.joda.time.Instant;

/** One step's input and output watermark after an epoch. */
public record OperatorWatermarks(Instant input, Instant output) {
  @Override
  public String toString() {
    return "in=" + WatermarkText.of(input) + " out=" + WatermarkText.of(output);
  }
}
