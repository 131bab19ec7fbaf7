package dev.weir.translation.streaming;

import org.apache.beam.sdk.transforms.PTransform;

/** A translator that acts when an epoch starts, before any step runs (a TestStream's clock). */
public interface EpochStartListener<T extends PTransform<?, ?>> {
  void onEpochStart(T transform, String stepName, StreamingRun run);
}
