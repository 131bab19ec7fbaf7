package dev.weir.cluster;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Stream;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * An unbounded source that acts like a message queue with acknowledgements: the longs [0, count),
 * value v at v seconds, dealt round-robin to the splits; a finalized checkpoint mark acknowledges
 * everything its split read before it (a file per split, {@code ackDir/split-N}), and a reader,
 * with a mark or without, starts after what is acknowledged. So a runner that finalized a mark
 * before its epoch was committed would lose values after a crash. Its files are on the local
 * disk, which every executor of the test cluster shares. Two mistakes are written down in {@code
 * ackDir/violations} for the test: a reader resuming behind what is acknowledged, and a mark
 * finalized while the checkpoint dir holds no commit newer than the mark. Watermark: the next
 * value's time, the end of time after the last.
 */
final class AckingQueueSource extends UnboundedSource<Long, AckingQueueSource.Mark> {
  private final String ackDir;
  private final @Nullable String checkpointDir;
  private final long count;
  private final int split;
  private final int splits;

  /** @param checkpointDir the pipeline's {@code --checkpointDir}; null: finalizing is not checked */
  AckingQueueSource(String ackDir, @Nullable String checkpointDir, long count) {
    this(ackDir, checkpointDir, count, 0, 1);
  }

  private AckingQueueSource(String ackDir, @Nullable String checkpointDir, long count, int split, int splits) {
    this.ackDir = ackDir;
    this.checkpointDir = checkpointDir;
    this.count = count;
    this.split = split;
    this.splits = splits;
  }

  /** The next value the split reads; finalizing acknowledges every value before it. */
  static final class Mark implements UnboundedSource.CheckpointMark, Serializable {
    final String ackDir;
    final @Nullable String checkpointDir;
    final int split;
    final long next;
    final long createdMillis = System.currentTimeMillis();

    Mark(String ackDir, @Nullable String checkpointDir, int split, long next) {
      this.ackDir = ackDir;
      this.checkpointDir = checkpointDir;
      this.split = split;
      this.next = next;
    }

    @Override
    public void finalizeCheckpoint() throws IOException {
      Path file = ackFile(ackDir, split);
      if (acknowledged(file, Long.MIN_VALUE) >= next) {
        return;
      }
      // The epoch that made this mark is committed after the mark was made.
      if (checkpointDir != null && newestCommitMillis(Path.of(checkpointDir)) < createdMillis) {
        violation(ackDir, "split " + split + " up to " + next + " finalized before its epoch was committed");
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, Long.toString(next), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Override
  public List<AckingQueueSource> split(int desiredNumSplits, PipelineOptions options) {
    int n = Math.max(1, desiredNumSplits);
    List<AckingQueueSource> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new AckingQueueSource(ackDir, checkpointDir, count, i, n));
    }
    return out;
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
    long from = mark == null ? split : mark.next;
    long acknowledged = acknowledged(ackFile(ackDir, split), split);
    if (acknowledged > from) {
      // Acknowledged past the committed mark this reader resumes from: the values between are
      // gone from a real queue.
      violation(ackDir, "split " + split + " resumes from " + from + " but " + acknowledged + " is acknowledged");
    }
    return new Reader(Math.max(from, acknowledged));
  }

  @Override
  public Coder<Mark> getCheckpointMarkCoder() {
    return SerializableCoder.of(Mark.class);
  }

  @Override
  public Coder<Long> getOutputCoder() {
    return VarLongCoder.of();
  }

  /** What the source wrote down as mistakes; empty if none. */
  static String violations(Path ackDir) {
    return Logs.read(ackDir.resolve("violations"));
  }

  /** The value after the last one acknowledged, per split file present. */
  static List<Long> acknowledgements(Path ackDir) throws IOException {
    try (Stream<Path> files = Files.list(ackDir)) {
      return files.filter(f -> f.getFileName().toString().matches("split-\\d+"))
          .sorted()
          .map(f -> acknowledged(f, -1))
          .toList();
    }
  }

  private static Path ackFile(String ackDir, int split) {
    return Path.of(ackDir, "split-" + split);
  }

  private static long acknowledged(Path file, long otherwise) {
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim()) : otherwise;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long newestCommitMillis(Path checkpointDir) throws IOException {
    Path commits = checkpointDir.resolve("commits");
    if (!Files.isDirectory(commits)) {
      return 0;
    }
    long newest = 0;
    try (Stream<Path> files = Files.list(commits)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().startsWith("epoch-")) {
          newest = Math.max(newest, Files.getLastModifiedTime(f).toMillis());
        }
      }
    }
    return newest;
  }

  private static void violation(String ackDir, String what) {
    try {
      Files.writeString(Path.of(ackDir, "violations"), what + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final class Reader extends UnboundedReader<Long> {
    private long next;
    private @Nullable Long current;

    Reader(long next) {
      this.next = next;
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      if (next >= count) {
        current = null;
        return false;
      }
      current = next;
      next += splits;
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
      return next >= count ? BoundedWindow.TIMESTAMP_MAX_VALUE : new Instant(next * 1000);
    }

    @Override
    public CheckpointMark getCheckpointMark() {
      return new Mark(ackDir, checkpointDir, split, next);
    }

    @Override
    public UnboundedSource<Long, ?> getCurrentSource() {
      return AckingQueueSource.this;
    }

    @Override
    public void close() {}
  }
}
