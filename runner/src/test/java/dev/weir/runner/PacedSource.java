package dev.weir.runner;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The longs [0, to) in interleaved splits, timestamp = value seconds, whose records become ready
 * at a rate, as a Kafka consumer's do: value v is ready {@code v / perSecond} seconds after the
 * source's first reader was created, and until then {@code advance()} is false; and after each
 * record the next {@code advance()} is false once, as a consumer's is between two polls. Watermark: the
 * next value's time, the end of time after the last. Counts the readers it creates, per source
 * (this JVM), and can fail the reading of one value once, to see what a re-created reader reads.
 */
final class PacedSource extends UnboundedSource<Long, FiniteUnboundedSource.Mark> {
  private static final Map<String, Long> STARTED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> READERS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();

  static final int SPLITS = 4;

  private final String id;
  private final long first;
  private final long to;
  private final long step;
  private final double perSecond;
  private final long failOnceAt;
  private final int splits;

  /**
   * @param id names this source's counters in this JVM
   * @param failOnceAt a value whose first read fails, or -1
   */
  PacedSource(String id, long to, double perSecond, long failOnceAt) {
    this(id, 0, to, 1, perSecond, failOnceAt, SPLITS);
  }

  /** The same with {@code splits} splits, none failing. */
  static PacedSource withSplits(String id, long to, double perSecond, int splits) {
    return new PacedSource(id, 0, to, 1, perSecond, -1, splits);
  }

  private PacedSource(String id, long first, long to, long step, double perSecond, long failOnceAt, int splits) {
    this.splits = splits;
    this.id = id;
    this.first = first;
    this.to = to;
    this.step = step;
    this.perSecond = perSecond;
    this.failOnceAt = failOnceAt;
  }

  /** How many readers the source {@code id} created in this JVM. */
  static int readersCreated(String id) {
    AtomicInteger n = READERS.get(id);
    return n == null ? 0 : n.get();
  }

  /** Always its number of splits, whatever the runner asks for, so both runners read alike. */
  @Override
  public List<PacedSource> split(int desiredNumSplits, PipelineOptions options) {
    List<PacedSource> parts = new ArrayList<>();
    int n = step == 1 ? splits : 1;
    if (n == 1) {
      return List.of(this);
    }
    for (int i = 0; i < n; i++) {
      parts.add(new PacedSource(id, first + i * step, to, step * n, perSecond, failOnceAt, splits));
    }
    return parts;
  }

  @Override
  public UnboundedReader<Long> createReader(PipelineOptions options, FiniteUnboundedSource.@Nullable Mark mark) {
    READERS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    STARTED.putIfAbsent(id, System.currentTimeMillis());
    return new Reader(mark == null ? first : mark.next);
  }

  @Override
  public Coder<FiniteUnboundedSource.Mark> getCheckpointMarkCoder() {
    return SerializableCoder.of(FiniteUnboundedSource.Mark.class);
  }

  @Override
  public Coder<Long> getOutputCoder() {
    return VarLongCoder.of();
  }

  private final class Reader extends LongsReader {
    /** Whether the last call gave a record: the next one then says "not yet", as between polls. */
    private boolean justRead;

    Reader(long next) {
      super(next, to, step);
    }

    @Override
    public boolean advance() {
      if (justRead) {
        justRead = false;
        return false;
      }
      if (next < to && System.currentTimeMillis() < STARTED.get(id) + (long) (next * 1000 / perSecond)) {
        return false;
      }
      if (next == failOnceAt && FAILED.computeIfAbsent(id, k -> new AtomicBoolean()).compareAndSet(false, true)) {
        throw new IllegalStateException(new IOException("injected failure reading " + next));
      }
      justRead = super.advance();
      return justRead;
    }

    @Override
    public CheckpointMark getCheckpointMark() {
      return new FiniteUnboundedSource.Mark(next);
    }

    @Override
    public UnboundedSource<Long, ?> getCurrentSource() {
      return PacedSource.this;
    }
  }
}
