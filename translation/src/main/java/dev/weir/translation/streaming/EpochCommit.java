package dev.weir.translation.streaming;

import java.io.Serializable;
import java.util.Map;

/**
 * What the driver commits to the checkpoint dir after an epoch, all in one file: the epoch, its
 * processing time, the partition count of keyed state, every step's watermarks, and what every
 * step keeps between epochs (a source's splits and checkpoint marks, a TestStream's position,
 * elements waiting for side inputs, the side inputs received so far). Keyed state itself is in
 * the state files, at this epoch's version.
 */
public record EpochCommit(
    long epoch,
    long processingTimeMillis,
    boolean draining,
    int keyedPartitions,
    Map<String, OperatorWatermarks> watermarks,
    Map<String, Object> progress,
    Map<String, Object> sideInputs)
    implements Serializable {}
