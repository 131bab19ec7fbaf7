package dev.weir.translation.streaming;

import java.io.Serializable;

/**
 * How much an epoch reads and how long the driver waits when nothing happens: the runner's
 * {@code --epochMaxRecords}, {@code --epochMaxReadTimeMillis} and {@code --epochIdleWaitMillis}.
 */
public final class StreamingSettings implements Serializable {
  private final long maxRecordsPerSplit;
  private final long maxReadTimeMillis;
  private final long idleWaitMillis;

  public StreamingSettings(long maxRecordsPerSplit, long maxReadTimeMillis, long idleWaitMillis) {
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
    this.idleWaitMillis = idleWaitMillis;
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
