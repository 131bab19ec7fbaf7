package dev.weir.translation.streaming;

import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.StateBackend;
import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How a streaming run reads and paces its epochs, from the runner's options: how much a source
 * split reads per epoch ({@code --epochMaxRecords}, {@code --epochMaxReadTimeMillis}, {@code
 * --epochQuietMillis}), how many splits an unbounded source is asked for ({@code
 * --sourceSplits}), how long the driver waits after an epoch in which nothing happened ({@code
 * --epochIdleWaitMillis}), when a quiet split counts as idle ({@code --idleTimeoutMillis}),
 * where epochs are committed ({@code --checkpointDir}) and where keyed state lives ({@code
 * --stateBackend}). Each value is checked here, naming its option.
 */
public final class StreamingSettings implements Serializable {
  public static final long DEFAULT_MAX_RECORDS = 100_000;
  public static final long DEFAULT_MAX_READ_TIME_MILLIS = 200;
  public static final long DEFAULT_QUIET_MILLIS = 100;
  public static final long DEFAULT_IDLE_WAIT_MILLIS = 100;

  private final long maxRecordsPerSplit;
  private final long maxReadTimeMillis;
  private final long quietMillis;
  private final int sourceSplits;
  private final long idleWaitMillis;
  private final long idleTimeoutMillis;
  private final @Nullable String checkpointDir;
  private final StateBackend stateBackend;

  /**
   * @param sourceSplits how many splits an unbounded source is asked for; 0: one per core
   *     (Spark's default parallelism)
   * @param idleTimeoutMillis 0: no split is ever idle
   * @param checkpointDir null: no checkpoints
   */
  public StreamingSettings(
      long maxRecordsPerSplit,
      long maxReadTimeMillis,
      long quietMillis,
      int sourceSplits,
      long idleWaitMillis,
      long idleTimeoutMillis,
      @Nullable String checkpointDir) {
    this(maxRecordsPerSplit, maxReadTimeMillis, quietMillis, sourceSplits, idleWaitMillis, idleTimeoutMillis, checkpointDir,
        MemoryStateBackend.INSTANCE);
  }

  /** As above, with keyed state in {@code stateBackend}. */
  public StreamingSettings(
      long maxRecordsPerSplit,
      long maxReadTimeMillis,
      long quietMillis,
      int sourceSplits,
      long idleWaitMillis,
      long idleTimeoutMillis,
      @Nullable String checkpointDir,
      StateBackend stateBackend) {
    this.stateBackend = stateBackend;
    this.maxRecordsPerSplit = atLeast(1, maxRecordsPerSplit, "--epochMaxRecords");
    this.maxReadTimeMillis = atLeast(1, maxReadTimeMillis, "--epochMaxReadTimeMillis");
    this.quietMillis = atLeast(1, quietMillis, "--epochQuietMillis");
    this.sourceSplits = (int) atLeast(0, sourceSplits, "--sourceSplits");
    this.idleWaitMillis = atLeast(0, idleWaitMillis, "--epochIdleWaitMillis");
    this.idleTimeoutMillis = atLeast(0, idleTimeoutMillis, "--idleTimeoutMillis");
    if (checkpointDir != null && checkpointDir.isBlank()) {
      throw new IllegalArgumentException("Invalid --checkpointDir: empty");
    }
    this.checkpointDir = checkpointDir;
  }

  /** The defaults, with {@code maxRecordsPerSplit} records per split and epoch (for tests). */
  public static StreamingSettings withMaxRecords(long maxRecordsPerSplit) {
    return new StreamingSettings(
        maxRecordsPerSplit, DEFAULT_MAX_READ_TIME_MILLIS, DEFAULT_QUIET_MILLIS, 0, DEFAULT_IDLE_WAIT_MILLIS, 0, null);
  }

  private static long atLeast(long min, long value, String option) {
    if (value < min) {
      throw new IllegalArgumentException(
          "Invalid " + option + "=" + value + ": must be at least " + min
              + (option.equals("--idleTimeoutMillis") ? " (0 turns idleness off)" : ""));
    }
    return value;
  }

  /** Where keyed state lives between epochs ({@code --stateBackend}). */
  public StateBackend stateBackend() {
    return stateBackend;
  }

  /** {@code --checkpointDir}, or null. */
  public @Nullable String checkpointDir() {
    return checkpointDir;
  }

  /**
   * How long (processing time) a source split may yield no data before it counts as idle and
   * leaves its source's watermark; 0: never.
   */
  public long idleTimeoutMillis() {
    return idleTimeoutMillis;
  }

  /** Records one source split reads at most per epoch. */
  public long maxRecordsPerSplit() {
    return maxRecordsPerSplit;
  }

  /** Time one source split reads at most per epoch. */
  public long maxReadTimeMillis() {
    return maxReadTimeMillis;
  }

  /** How long a split waits for a record to be ready before it ends its read for the epoch. */
  public long quietMillis() {
    return quietMillis;
  }

  /** How many splits an unbounded source is asked for, given Spark's default parallelism. */
  public int sourceSplits(int defaultParallelism) {
    return sourceSplits > 0 ? sourceSplits : defaultParallelism;
  }

  /** The pause before the next epoch when one read nothing and moved no watermark. */
  public long idleWaitMillis() {
    return idleWaitMillis;
  }
}
