package dev.weir.nexmark.generator;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Random;
import org.apache.beam.sdk.coders.BigEndianLongCoder;
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
 * {@link BoundedEventSource}, dealt to the splits asked for. Events arrive in order of event time, except
 * that an event may be delayed ({@code probDelayedEvent}, up to {@code occasionalDelaySec}) and
 * arrive after later ones; the watermark (the least event time still to come) waits for it, so
 * it is never late. With {@code rateLimited} events arrive at their rate in wall-clock time. The
 * watermark reaches the end of time when every event has been read, so a streaming pipeline
 * ends. The checkpoint mark is the number of events handed out from each block.
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

  /**
   * At most {@code desiredNumSplits} splits, each with its share of the blocks (dealt round
   * robin), whose reader hands their events out merged by arrival time. One split per block
   * would be a hundred readers: a runner reading each split in a task of its own per epoch (Spark)
   * would spend most of a rate-limited epoch waiting in turn on readers with nothing due.
   */
  @Override
  public List<UnboundedEventSource> split(int desiredNumSplits, PipelineOptions options) {
    int n = Math.max(1, Math.min(desiredNumSplits, blocks.size()));
    List<List<long[]>> shares = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < blocks.size(); i++) {
      shares.get(i % n).add(blocks.get(i));
    }
    List<UnboundedEventSource> splits = new ArrayList<>();
    for (List<long[]> share : shares) {
      splits.add(new UnboundedEventSource(config, share));
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

  /**
   * Events handed out so far from each block of the source, and when (wall clock, ms) the first
   * reader of a rate-limited stream started (-1 when not rate limited).
   */
  public static final class Checkpoint implements UnboundedSource.CheckpointMark {
    final List<Long> counts;
    final long startWallMs;

    Checkpoint(List<Long> counts, long startWallMs) {
      this.counts = counts;
      this.startWallMs = startWallMs;
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
      BigEndianLongCoder.of().encode(value.startWallMs, out);
    }

    @Override
    public Checkpoint decode(InputStream in) throws IOException {
      return new Checkpoint(COUNTS.decode(in), BigEndianLongCoder.of().decode(in));
    }
  }

  /**
   * How late event {@code id} arrives after its event time: 0, or with probability {@code
   * probDelayedEvent} up to {@code occasionalDelaySec}. Drawn from its own generator seeded with
   * the id, so the event itself, and any split of the stream, stay the same.
   */
  static long delayMs(NexmarkConfig config, long id) {
    if (config.probDelayedEvent <= 0) {
      return 0;
    }
    Random random = new Random(id * 0x9E3779B97F4A7C15L + 0x5DEECE66DL);
    if (random.nextDouble() >= config.probDelayedEvent) {
      return 0;
    }
    return 1 + (long) (random.nextDouble() * config.occasionalDelaySec * 1000L);
  }

  /**
   * One block's events in the order they arrive: by arrival time (event time plus delay), then
   * position. Events are read ahead into a small queue until no later one can arrive first: a
   * future event's time is at least the generator's watermark. Which events are out depends only
   * on how many, so a checkpoint is a count, and a reader resuming from it replays the order on
   * event times alone, without making the events.
   */
  private static final class Block {
    private final Generator generator;
    private final NexmarkConfig config;
    // {arrival ms, position, event time ms}
    private final PriorityQueue<long[]> queue =
        new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    private long emitted;

    Block(NexmarkConfig config, long[] block, long emitted) {
      this.config = config;
      this.generator = new Generator(config, block[0], block[1], 0);
      for (long i = 0; i < emitted; i++) {
        fill();
        queue.poll();
      }
      this.emitted = emitted;
    }

    private void fill() {
      while (generator.hasNext() && (queue.isEmpty() || generator.watermark().getMillis() <= queue.peek()[0])) {
        long n = generator.count();
        long time = generator.timestampMsAt(n);
        queue.add(new long[] {time + delayMs(config, generator.eventIdAt(n)), n, time});
        generator.skipTo(n + 1);
      }
    }

    /** {arrival, position, time} of the next event to hand out, or null when done. */
    long @Nullable [] head() {
      fill();
      return queue.peek();
    }

    TimestampedValue<Event> take() {
      long[] next = queue.poll();
      emitted++;
      return generator.eventAt(next[1]);
    }

    /** No event still to come from this block is earlier than this. */
    Instant watermark() {
      long least = generator.hasNext() ? generator.watermark().getMillis() : BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis();
      for (long[] queued : queue) {
        least = Math.min(least, queued[2]);
      }
      return new Instant(least);
    }
  }

  private final class Reader extends UnboundedReader<Event> {
    private final List<Block> blocks = new ArrayList<>();
    private final long startWallMs;
    private @Nullable TimestampedValue<Event> current;

    Reader(@Nullable Checkpoint checkpoint) {
      for (int i = 0; i < UnboundedEventSource.this.blocks.size(); i++) {
        long emitted = checkpoint == null ? 0 : checkpoint.counts.get(i);
        blocks.add(new Block(config, UnboundedEventSource.this.blocks.get(i), emitted));
      }
      startWallMs =
          !config.rateLimited ? -1 : checkpoint != null && checkpoint.startWallMs >= 0 ? checkpoint.startWallMs
              : config.streamStartWallMs >= 0 ? config.streamStartWallMs : System.currentTimeMillis();
    }

    @Override
    public boolean start() {
      return advance();
    }

    /**
     * The next event of any block, by arrival time; when rate limited, only once the wall clock
     * has reached its arrival time (counted from the stream's start, or else the first reader's).
     */
    @Override
    public boolean advance() {
      int best = -1;
      long[] bestHead = null;
      for (int i = 0; i < blocks.size(); i++) {
        long[] head = blocks.get(i).head();
        if (head != null && (bestHead == null || head[0] < bestHead[0])) {
          best = i;
          bestHead = head;
        }
      }
      if (best < 0 || (config.rateLimited && startWallMs + (bestHead[0] - EventTimeline.BASE_TIME_MS) > System.currentTimeMillis())) {
        current = null;
        return false;
      }
      current = blocks.get(best).take();
      return true;
    }

    @Override
    public Instant getWatermark() {
      Instant watermark = BoundedWindow.TIMESTAMP_MAX_VALUE;
      for (Block block : blocks) {
        Instant w = block.watermark();
        if (w.isBefore(watermark)) {
          watermark = w;
        }
      }
      return watermark;
    }

    @Override
    public Checkpoint getCheckpointMark() {
      List<Long> counts = new ArrayList<>();
      for (Block block : blocks) {
        counts.add(block.emitted);
      }
      return new Checkpoint(counts, startWallMs);
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
