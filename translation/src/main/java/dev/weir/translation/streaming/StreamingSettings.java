package dev.weir.translation.streaming;

import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How much an epoch reads, how long the driver waits when nothing happens, and when a quiet
 * source split counts as idle: the runner's {@code --epochMaxRecords}, {@code
 * --epochMaxReadTimeMillis}, {@code --epochQuietMillis}, {@code --epochIdleWaitMillis} and {@code
 * --idleTimeoutMillis}, and
 * where epochs are committed ({@code --checkpointDir}).
 */
public final class StreamingSettings implements Serializable {
  private final long maxRecordsPerSplit;
  private final long maxReadTimeMillis;
  private final long idleWaitMillis;
  private final long idleTimeoutMillis;
  private final long quietMillis;
  private final @Nullable String checkpointDir;

  /** {@code --epochQuietMillis}'s default. */
  public static final long DEFAULT_QUIET_MILLIS = 100;

  public StreamingSettings(long maxRecordsPerSplit, long maxReadTimeMillis, long idleWaitMillis) {
    this(maxRecordsPerSplit, maxReadTimeMillis, idleWaitMillis, 0);
  }

  public StreamingSettings(long maxRecordsPerSplit, long maxReadTimeMillis, long idleWaitMillis, long idleTimeoutMillis) {
    this(maxRecordsPerSplit, maxReadTimeMillis, idleWaitMillis, idleTimeoutMillis, null);
  }

  /**
   * @param checkpointDir {@code --checkpointDir}: where epochs are committed and from where a
   *     restarted pipeline resumes; null: no checkpoints
   */
  public StreamingSettings(
      long maxRecordsPerSplit,
      long maxReadTimeMillis,
      long idleWaitMillis,
      long idleTimeoutMillis,
      @Nullable String checkpointDir) {
    this(maxRecordsPerSplit, maxReadTimeMillis, DEFAULT_QUIET_MILLIS, idleWaitMillis, idleTimeoutMillis, checkpointDir);
  }

  /**
   * @param quietMillis {@code --epochQuietMillis}: a split stops reading for the epoch once
   *     nothing has been ready for this long
   * @param checkpointDir {@code --checkpointDir}: where epochs are committed and from where a
   *     restarted pipeline resumes; null: no checkpoints
   */
  public StreamingSettings(
      long maxRecordsPerSplit,
      long maxReadTimeMillis,
      long quietMillis,
      long idleWaitMillis,
      long idleTimeoutMillis,
      @Nullable String checkpointDir) {
    if (quietMillis < 1) {
      throw new IllegalArgumentException("Invalid --epochQuietMillis=" + quietMillis + ": must be at least 1");
    }
    this.quietMillis = quietMillis;
    if (maxRecordsPerSplit < 1) {
      throw new IllegalArgumentException("Invalid --epochMaxRecords=" + maxRecordsPerSplit + ": must be at least 1");
    }
    if (maxReadTimeMillis < 1) {
      throw new IllegalArgumentException(
          "Invalid --epochMaxReadTimeMillis=" + maxReadTimeMillis + ": must be at least 1");
    }
    if (idleWaitMillis < 0) {
      throw new IllegalArgumentException("Invalid --epochIdleWaitMillis=" + idleWaitMillis + ": must not be negative");
    }
    this.maxRecordsPerSplit = maxRecordsPerSplit;
    this.maxReadTimeMillis = maxReadTimeMillis;
    if (idleTimeoutMillis < 0) {
      throw new IllegalArgumentException(
          "Invalid --idleTimeoutMillis=" + idleTimeoutMillis + ": must not be negative (0 turns idleness off)");
    }
    this.idleWaitMillis = idleWaitMillis;
    this.idleTimeoutMillis = idleTimeoutMillis;
    if (checkpointDir != null && checkpointDir.isBlank()) {
      throw new IllegalArgumentException("Invalid --checkpointDir: empty");
    }
    this.checkpointDir = checkpointDir;
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

  /** How long a split waits for a record to be ready before it ends its read for the epoch. */
  public long quietMillis() {
    return quietMillis;
  }

  /** Time one source split reads at most per epoch. */
  public long maxReadTimeMillis() {
    return maxReadTimeMillis;
  }

  /** The pause before the next epoch when one read nothing and moved no watermark. */
  public long idleWaitMillis() {
    return idleWaitMillis;
  }
}
