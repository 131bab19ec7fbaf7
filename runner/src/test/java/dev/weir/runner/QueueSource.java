package dev.weir.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An unbounded source that behaves like a message queue: the longs [0, to), timestamp = value
 * seconds, in interleaved splits; finalizing a checkpoint mark acknowledges what it covers, in a
 * file per split that outlives the pipeline, and acknowledged values are gone: a reader (with a
 * mark or without) starts after the last acknowledged value. So a runner that finalizes a mark
 * before its epoch is committed loses data on a crash, and one that does not resume from its
 * checkpoint loses the state built from acknowledged values. Watermark: the next value's time,
 * the end of time after the last.
 */
final class QueueSource extends UnboundedSource<Long, QueueSource.Mark> {
  private final String ackDir;
  private final long first;
  private final long to;
  private final long step;
  private final int split;

  QueueSource(String ackDir, long to) {
    this(ackDir, 0, to, 1, 0);
  }

  private QueueSource(String ackDir, long first, long to, long step, int split) {
    this.ackDir = ackDir;
    this.first = first;
    this.to = to;
    this.step = step;
    this.split = split;
  }

  /** The next value to read; finalizing it acknowledges everything before. */
  static final class Mark implements UnboundedSource.CheckpointMark, java.io.Serializable {
    final String ackFile;
    final long next;

    Mark(String ackFile, long next) {
      this.ackFile = ackFile;
      this.next = next;
    }

    @Override
    public void finalizeCheckpoint() throws IOException {
      Path file = Path.of(ackFile);
      if (acknowledged(file, Long.MIN_VALUE) >= next) {
        return;
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, Long.toString(next), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static long acknowledged(Path file, long otherwise) {
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim()) : otherwise;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public List<QueueSource> split(int desiredNumSplits, PipelineOptions options) {
    List<QueueSource> splits = new ArrayList<>();
    int n = Math.max(1, desiredNumSplits);
    for (int i = 0; i < n; i++) {
      splits.add(new QueueSource(ackDir, first + i * step, to, step * n, i));
    }
    return splits;
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
    String ackFile = Path.of(ackDir, "split-" + split).toString();
    long next = Math.max(mark == null ? first : mark.next, acknowledged(Path.of(ackFile), first));
    return new Reader(ackFile, next);
  }

  @Override
  public Coder<Mark> getCheckpointMarkCoder() {
    return SerializableCoder.of(Mark.class);
  }

  @Override
  public Coder<Long> getOutputCoder() {
    return VarLongCoder.of();
  }

  private final class Reader extends LongsReader {
    private final String ackFile;

    Reader(String ackFile, long next) {
      super(next, to, step);
      this.ackFile = ackFile;
    }

    @Override
    public CheckpointMark getCheckpointMark() {
      return new Mark(ackFile, next);
    }

    @Override
    public UnboundedSource<Long, ?> getCurrentSource() {
      return QueueSource.this;
    }
  }
}
