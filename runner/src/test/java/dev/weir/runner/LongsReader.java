package dev.weir.runner;

import java.util.NoSuchElementException;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Reads the longs next, next + step, ... below {@code to}, timestamp = value seconds; watermark
 * the next value's time, the end of time after the last: the reader of the test sources that
 * split a range of longs into interleaved residues.
 */
abstract class LongsReader extends UnboundedSource.UnboundedReader<Long> {
  private final long to;
  private final long step;
  protected long next;
  private @Nullable Long current;

  LongsReader(long next, long to, long step) {
    this.next = next;
    this.to = to;
    this.step = step;
  }

  @Override
  public boolean start() {
    return advance();
  }

  @Override
  public boolean advance() {
    if (next >= to) {
      current = null;
      return false;
    }
    current = next;
    next += step;
    return true;
  }

  @Override
  public Long getCurrent() {
    if (current == null) {
      throw new NoSuchElementException();
    }
    return current;
  }

  @Override
  public Instant getCurrentTimestamp() {
    return new Instant(getCurrent() * 1000);
  }

  @Override
  public Instant getWatermark() {
    return next >= to ? BoundedWindow.TIMESTAMP_MAX_VALUE : new Instant(next * 1000);
  }

  @Override
  public void close() {}
}
