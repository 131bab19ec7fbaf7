package dev.weir.nexmark.generator;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.BoundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * The event stream as a bounded source. The stream is made of {@code numEventGenerators}
 * contiguous blocks of event ids, each generated on its own copy of the shared timeline; a
 * source holds some of the blocks and reads them in order. Splitting hands out blocks, so the
 * events read are the same however (and whether) the source is split.
 */
public final class BoundedEventSource extends BoundedSource<Event> {
  private final NexmarkConfig config;
  private final List<long[]> blocks;

  private BoundedEventSource(NexmarkConfig config, List<long[]> blocks) {
    this.config = config;
    this.blocks = blocks;
  }

  /** The whole stream of {@code config}. */
  public static BoundedEventSource of(NexmarkConfig config) {
    int generators = Math.max(1, config.numEventGenerators);
    List<long[]> blocks = new ArrayList<>();
    long size = config.numEvents / generators;
    long first = 0;
    for (int i = 0; i < generators; i++) {
      long events = i == generators - 1 ? config.numEvents - size * (generators - 1) : size;
      blocks.add(new long[] {first, events});
      first += events;
    }
    return new BoundedEventSource(config, blocks);
  }

  /** The (first event id, number of events) blocks this source reads. */
  List<long[]> blocks() {
    return blocks;
  }

  @Override
  public List<BoundedEventSource> split(long desiredBundleSizeBytes, PipelineOptions options) {
    List<BoundedEventSource> splits = new ArrayList<>();
    for (long[] block : blocks) {
      splits.add(new BoundedEventSource(config, List.of(block)));
    }
    return splits;
  }

  @Override
  public long getEstimatedSizeBytes(PipelineOptions options) {
    long events = 0;
    for (long[] block : blocks) {
      events += block[1];
    }
    return events * (config.avgBidByteSize * 46L + config.avgAuctionByteSize * 3L + config.avgPersonByteSize) / 50;
  }

  @Override
  public Coder<Event> getOutputCoder() {
    return Event.EventCoder.INSTANCE;
  }

  @Override
  public BoundedReader<Event> createReader(PipelineOptions options) {
    return new Reader();
  }

  private final class Reader extends BoundedReader<Event> {
    private int block = -1;
    private Generator generator;
    private TimestampedValue<Event> current;

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      while (generator == null || !generator.hasNext()) {
        block++;
        if (block >= blocks.size()) {
          current = null;
          return false;
        }
        generator = new Generator(config, blocks.get(block)[0], blocks.get(block)[1], 0);
      }
      current = generator.next();
      return true;
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
    public BoundedEventSource getCurrentSource() {
      return BoundedEventSource.this;
    }
  }
}
