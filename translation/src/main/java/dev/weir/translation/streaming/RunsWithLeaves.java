package dev.weir.translation.streaming;

import org.apache.beam.sdk.transforms.PTransform;

/**
 * A streaming translator whose step can run within the epoch's leaves job instead of a job of its
 * own, when only lazily derived steps follow it ({@link EpochLoop#withLeaves}): a source's read,
 * or a keyed step's partitions. It asks {@link StreamingRun#runsWithLeaves} as it translates, and
 * settles what the job did, and the watermark it reached, in {@link StreamingRun#afterLeaves}.
 */
interface RunsWithLeaves<T extends PTransform<?, ?>> {
  /** Whether {@code transform} is one this translator can run within the leaves job. */
  default boolean canRunWithLeaves(T transform) {
    return true;
  }
}
