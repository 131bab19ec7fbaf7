package dev.weir.runner;

import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Two splits, whatever is asked: a busy one, endless, value i at i x 100 ms, and a quiet one that
 * never has data and whose watermark stays at the start of time.
 */
final class OneIdleSplitSource extends UnboundedSource<Long, OneIdleSplitSource.Mark> {
  private final boolean busy;

  OneIdleSplitSource() {
    this(true);
  }

  private OneIdleSplitSource(boolean busy) {
    this.busy = busy;
  }

  /** The next value of the busy split. */
  static final class Mark implements UnboundedSource.CheckpointMark, java.io.Serializable {
    final long next;

    Mark(long next) {
      this.next = next;
    }

    @Override
    public void finalizeCheckpoint() {}
  }

  @Override
  public List<OneIdleSplitSource> split(int desiredNumSplits, PipelineOptions options) {
    return List.of(new OneIdleSplitSource(true), new OneIdleSplitSource(false));
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
    long next = mark == null ? 0 : mark.next;
    return new UnboundedReader<>() {
      private long position = next;
      private @Nullable Long current;

      @Override
      public boolean start() {
        return advance();
      }

      @Override
      public boolean advance() {
        if (!busy) {
          return false;
        }
        current = position++;
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
        return new Instant(getCurrent() * 100);
      }

      @Override
      public Instant getWatermark() {
        return busy ? new Instant(position * 100) : BoundedWindow.TIMESTAMP_MIN_VALUE;
      }

      @Override
      public CheckpointMark getCheckpointMark() {
        return new Mark(position);
      }

      @Override
      public UnboundedSource<Long, ?> getCurrentSource() {
        return OneIdleSplitSource.this;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public Coder<Mark> getCheckpointMarkCoder() {
    return SerializableCoder.of(Mark.class);
  }

  @Override
  public Coder<Long> getOutputCoder() {
    return VarLongCoder.of();
  }
}
