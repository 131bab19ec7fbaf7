package dev.weir.translation.streaming;

import org.joda.time.Instant;

/**
 * One step's input and output watermark after an epoch, and whether it is idle: a source whose
 * splits have all gone quiet, or a step whose inputs are all idle (Flink's WatermarkStatus).
 */
public record OperatorWatermarks(Instant input, Instant output, boolean idle) implements java.io.Serializable {
  public OperatorWatermarks(Instant input, Instant output) {
    this(input, output, false);
  }

  @Override
  public String toString() {
    return "in=" + WatermarkText.of(input) + " out=" + WatermarkText.of(output) + (idle ? " IDLE" : "");
  }
}
