package dev.weir.runner;

import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An unbounded source of the longs [from, to) with timestamp = value seconds, that says it is done
 * (watermark at the end of time) after the last one: an unbounded read that finishes. Splits into
 * interleaved residues; the checkpoint mark is the next value to read.
 */
final class FiniteUnboundedSource extends UnboundedSource<Long, FiniteUnboundedSource.Mark> {
  private final long from;
  private final long to;
  private final long step;

  FiniteUnboundedSource(long from, long to, long step) {
    this.from = from;
    this.to = to;
    this.step = step;
  }

  /** The next value to read. */
  static final class Mark implements UnboundedSource.CheckpointMark, java.io.Serializable {
    final long next;

    Mark(long next) {
      this.next = next;
    }

    @Override
    public void finalizeCheckpoint() {}
  }

  @Override
  public List<FiniteUnboundedSource> split(int desiredNumSplits, PipelineOptions options) {
    List<FiniteUnboundedSource> splits = new ArrayList<>();
    int n = Math.max(1, desiredNumSplits);
    for (int i = 0; i < n; i++) {
      splits.add(new FiniteUnboundedSource(from + i * step, to, step * n));
    }
    return splits;
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
    return new Reader(mark == null ? from : mark.next);
  }

  @Override
  public Coder<Mark> getCheckpointMarkCoder() {
    return org.apache.beam.sdk.coders.SerializableCoder.of(Mark.class);
  }

  @Override
  public Coder<Long> getOutputCoder() {
    return VarLongCoder.of();
  }

  private final class Reader extends LongsReader {
    Reader(long next) {
      super(next, to, step);
    }

    @Override
    public CheckpointMark getCheckpointMark() {
      return new Mark(next);
    }

    @Override
    public UnboundedSource<Long, ?> getCurrentSource() {
      return FiniteUnboundedSource.this;
    }
  }
}
