package dev.weir.translation.streaming;

import java.io.Serializable;

/**
 * How much an epoch reads, how long the driver waits when nothing happens, and when a quiet
 * source split counts as idle: the runner's {@code --epochMaxRecords}, {@code
 * --epochMaxReadTimeMillis}, {@code --epochIdleWaitMillis} and {@code --idleTimeoutMillis}.
 */
public final class StreamingSettings implements Serializable {
  private final long maxRecordsPerSplit;
  private final long maxReadTimeMillis;
  private final long idleWaitMillis;
  private final long idleTimeoutMillis;

  public StreamingSettings(long maxRecordsPerSplit, long maxReadTimeMillis, long idleWaitMillis) {
    this(maxRecordsPerSplit, maxReadTimeMillis, idleWaitMillis, 0);
  }

  public StreamingSettings(long maxRecordsPerSplit, long maxReadTimeMillis, long idleWaitMillis, long idleTimeoutMillis) {
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

  /** The pause before the next epoch when one read nothing and moved no watermark. */
  public long idleWaitMillis() {
    return idleWaitMillis;
  }
}
