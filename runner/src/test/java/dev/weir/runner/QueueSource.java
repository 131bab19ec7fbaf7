package dev.weir.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
 * checkpoint loses the state built from acknowledged values. Written down for the test
 * ({@link #violations}): a reader created from a mark behind what is already acknowledged,
 * and a mark finalized while no commit newer than the mark is in the checkpoint dir (finalized
 * before its epoch was committed). Watermark: the next value's time, the end of time after the
 * last.
 */
final class QueueSource extends UnboundedSource<Long, QueueSource.Mark> {
  private final String ackDir;
  private final @Nullable String checkpointDir;
  private final long first;
  private final long to;
  private final long step;
  private final int split;

  /**
   * @param checkpointDir the pipeline's {@code --checkpointDir}, or null: a mark finalized before
   *     a commit newer than the mark is there is written down ({@link #violations})
   */
  QueueSource(String ackDir, @Nullable String checkpointDir, long to) {
    this(ackDir, checkpointDir, 0, to, 1, 0);
  }

  private QueueSource(String ackDir, @Nullable String checkpointDir, long first, long to, long step, int split) {
    this.ackDir = ackDir;
    this.checkpointDir = checkpointDir;
    this.first = first;
    this.to = to;
    this.step = step;
    this.split = split;
  }

  /** The next value to read; finalizing it acknowledges everything before. */
  static final class Mark implements UnboundedSource.CheckpointMark, java.io.Serializable {
    final String ackFile;
    final long next;
    final long createdMillis = System.currentTimeMillis();
    final @Nullable String checkpointDir;

    Mark(String ackFile, long next, @Nullable String checkpointDir) {
      this.ackFile = ackFile;
      this.next = next;
      this.checkpointDir = checkpointDir;
    }

    @Override
    public void finalizeCheckpoint() throws IOException {
      Path file = Path.of(ackFile);
      if (acknowledged(file, Long.MIN_VALUE) >= next) {
        return;
      }
      // The epoch that made this mark commits after the mark was made; until then the newest
      // commit is an older epoch's, written before this mark existed.
      if (checkpointDir != null && newestCommitMillis(Path.of(checkpointDir)) < createdMillis) {
        violation(
            file.getParent().toString(),
            file.getFileName() + " up to " + next + " finalized before the epoch that read it was committed");
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, Long.toString(next), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** When the newest commit in the checkpoint dir was written, or 0 if there is none. */
  private static long newestCommitMillis(Path checkpointDir) throws IOException {
    Path commits = checkpointDir.resolve("commits");
    if (!Files.isDirectory(commits)) {
      return 0;
    }
    long newest = 0;
    try (java.util.stream.Stream<Path> files = Files.list(commits)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().startsWith("epoch-")) {
          newest = Math.max(newest, Files.getLastModifiedTime(f).toMillis());
        }
      }
    }
    return newest;
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
      splits.add(new QueueSource(ackDir, checkpointDir, first + i * step, to, step * n, i));
    }
    return splits;
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
    String ackFile = Path.of(ackDir, "split-" + split).toString();
    long from = mark == null ? first : mark.next;
    long acknowledged = acknowledged(Path.of(ackFile), first);
    if (acknowledged > from) {
      // A reader resumes from the last committed mark. Acknowledged beyond it: a mark was
      // finalized before its epoch was committed, and the values in between are gone. (Short of
      // it is fine: the committed mark is finalized once the resumed run knows it is committed.)
      // A real queue says nothing; this one writes it down for the test.
      violation(ackDir, "split " + split + " resumes from " + from + " but " + acknowledged + " is acknowledged");
    }
    return new Reader(ackFile, Math.max(from, acknowledged));
  }

  /** Where {@link #createReader} writes down marks finalized too early or never. */
  static Path violations(String ackDir) {
    return Path.of(ackDir, "violations");
  }

  private static void violation(String ackDir, String what) {
    try {
      Files.writeString(
          violations(ackDir), what + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
      return new Mark(ackFile, next, checkpointDir);
    }

    @Override
    public UnboundedSource<Long, ?> getCurrentSource() {
      return QueueSource.this;
    }
  }
}
