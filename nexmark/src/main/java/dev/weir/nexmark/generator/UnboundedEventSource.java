package dev.weir.nexmark.generator;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.TimestampedValue;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The event stream as an unbounded source, for streaming runs: the same blocks of events as
 * {@link BoundedEventSource}, one split per block. A reader over several blocks merges them by
 * event time, so its watermark (the least of its generators') never goes back. The watermark
 * reaches the end of time when every event has been read, so a streaming pipeline ends. The
 * checkpoint mark is the number of events read from each block.
 */
public final class UnboundedEventSource extends UnboundedSource<Event, UnboundedEventSource.Checkpoint> {
  private final NexmarkConfig config;
  private final List<long[]> blocks;

  private UnboundedEventSource(NexmarkConfig config, List<long[]> blocks) {
    this.config = config;
    this.blocks = blocks;
  }

  public static UnboundedEventSource of(NexmarkConfig config) {
    return new UnboundedEventSource(config, BoundedEventSource.of(config).blocks());
  }

  @Override
  public List<UnboundedEventSource> split(int desiredNumSplits, PipelineOptions options) {
    List<UnboundedEventSource> splits = new ArrayList<>();
    for (long[] block : blocks) {
      splits.add(new UnboundedEventSource(config, List.of(block)));
    }
    return splits;
  }

  @Override
  public UnboundedReader<Event> createReader(PipelineOptions options, @Nullable Checkpoint checkpoint) {
    return new Reader(checkpoint);
  }

  @Override
  public Coder<Checkpoint> getCheckpointMarkCoder() {
    return CheckpointCoder.INSTANCE;
  }

  @Override
  public Coder<Event> getOutputCoder() {
    return Event.EventCoder.INSTANCE;
  }

  /** Events read so far from each block of the source. */
  public static final class Checkpoint implements UnboundedSource.CheckpointMark {
    final List<Long> counts;

    Checkpoint(List<Long> counts) {
      this.counts = counts;
    }

    @Override
    public void finalizeCheckpoint() {}
  }

  private static final class CheckpointCoder extends CustomCoder<Checkpoint> {
    static final CheckpointCoder INSTANCE = new CheckpointCoder();
    private static final Coder<List<Long>> COUNTS = ListCoder.of(VarLongCoder.of());

    @Override
    public void encode(Checkpoint value, OutputStream out) throws IOException {
      COUNTS.encode(value.counts, out);
    }

    @Override
    public Checkpoint decode(InputStream in) throws IOException {
      return new Checkpoint(COUNTS.decode(in));
    }
  }

  private final class Reader extends UnboundedReader<Event> {
    private final List<Generator> generators = new ArrayList<>();
    private final List<TimestampedValue<Event>> heads = new ArrayList<>();
    private TimestampedValue<Event> current;

    Reader(@Nullable Checkpoint checkpoint) {
      for (int i = 0; i < blocks.size(); i++) {
        Generator g = new Generator(config, blocks.get(i)[0], blocks.get(i)[1], 0);
        if (checkpoint != null) {
          g.skipTo(checkpoint.counts.get(i));
        }
        generators.add(g);
        heads.add(null);
      }
    }

    @Override
    public boolean start() {
      return advance();
    }

    /** The earliest next event of any block. */
    @Override
    public boolean advance() {
      int best = -1;
      for (int i = 0; i < generators.size(); i++) {
        if (heads.get(i) == null && generators.get(i).hasNext()) {
          heads.set(i, generators.get(i).next());
        }
        TimestampedValue<Event> head = heads.get(i);
        if (head != null && (best < 0 || head.getTimestamp().isBefore(heads.get(best).getTimestamp()))) {
          best = i;
        }
      }
      if (best < 0) {
        current = null;
        return false;
      }
      current = heads.get(best);
      heads.set(best, null);
      return true;
    }

    @Override
    public Instant getWatermark() {
      Instant watermark = BoundedWindow.TIMESTAMP_MAX_VALUE;
      for (int i = 0; i < generators.size(); i++) {
        TimestampedValue<Event> head = heads.get(i);
        if (head != null) {
          watermark = min(watermark, head.getTimestamp());
        } else if (generators.get(i).hasNext()) {
          watermark = min(watermark, generators.get(i).watermark());
        }
      }
      return watermark;
    }

    private Instant min(Instant a, Instant b) {
      return a.isBefore(b) ? a : b;
    }

    /** Events handed out so far per block: a peeked head is not handed out yet. */
    @Override
    public Checkpoint getCheckpointMark() {
      List<Long> counts = new ArrayList<>();
      for (int i = 0; i < generators.size(); i++) {
        counts.add(generators.get(i).count() - (heads.get(i) == null ? 0 : 1));
      }
      return new Checkpoint(counts);
    }

    @Override
    public Event getCurrent() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return current.getValue();
    }

    @Override
    public Instant getCurrentTimestamp() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return current.getTimestamp();
    }

    @Override
    public void close() {}

    @Override
    public UnboundedEventSource getCurrentSource() {
      return UnboundedEventSource.this;
    }
  }
}
