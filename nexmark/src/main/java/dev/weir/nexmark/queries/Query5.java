package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionCount;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 5, HOT_ITEMS: per sliding window, the auctions with the most bids (every one tied at the
 * maximum). Counts per auction, then a global combine with hot-key fanout.
 */
public final class Query5 implements NexmarkQuery<AuctionCount> {
  @Override
  public int number() {
    return 5;
  }

  @Override
  public String name() {
    return "HOT_ITEMS";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<AuctionCount>> transform(NexmarkConfig config) {
    Duration size = Duration.standardSeconds(config.windowSizeSec);
    Duration period = Duration.standardSeconds(config.windowPeriodSec);
    int fanout = config.fanout;
    return new PTransform<>("HotItems") {
      @Override
      public PCollection<AuctionCount> expand(PCollection<Event> events) {
        return events
            .apply("BidAuctions", ParDo.of(new BidAuction()))
            .setCoder(VarLongCoder.of())
            .apply(Window.into(SlidingWindows.of(size).every(period)))
            .apply(Count.perElement())
            .apply(Combine.globally(new MostBids()).withoutDefaults().withFanout(fanout))
            .apply("Flatten", ParDo.of(new Explode()))
            .setCoder(SerializableCoder.of(AuctionCount.class));
      }
    };
  }

  private static final class BidAuction extends DoFn<Event, Long> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Long> out) {
      if (e.bid != null) {
        out.output(e.bid.auction);
      }
    }
  }

  /** The highest count and every auction that has it. */
  static final class MostBids extends Combine.CombineFn<KV<Long, Long>, KV<Long, List<Long>>, KV<Long, List<Long>>> {
    @Override
    public KV<Long, List<Long>> createAccumulator() {
      return KV.of(0L, new ArrayList<>());
    }

    @Override
    public KV<Long, List<Long>> addInput(KV<Long, List<Long>> acc, KV<Long, Long> auctionCount) {
      return merge(acc, KV.of(auctionCount.getValue(), List.of(auctionCount.getKey())));
    }

    private static KV<Long, List<Long>> merge(KV<Long, List<Long>> a, KV<Long, List<Long>> b) {
      if (a.getKey() > b.getKey()) {
        return a;
      }
      if (b.getKey() > a.getKey()) {
        return KV.of(b.getKey(), new ArrayList<>(b.getValue()));
      }
      List<Long> both = new ArrayList<>(a.getValue());
      both.addAll(b.getValue());
      return KV.of(a.getKey(), both);
    }

    @Override
    public KV<Long, List<Long>> mergeAccumulators(Iterable<KV<Long, List<Long>>> accs) {
      KV<Long, List<Long>> merged = createAccumulator();
      for (KV<Long, List<Long>> acc : accs) {
        merged = merge(merged, acc);
      }
      return merged;
    }

    @Override
    public KV<Long, List<Long>> extractOutput(KV<Long, List<Long>> acc) {
      return acc;
    }

    @Override
    public org.apache.beam.sdk.coders.Coder<KV<Long, List<Long>>> getAccumulatorCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, org.apache.beam.sdk.coders.Coder<KV<Long, Long>> input) {
      return KvCoder.of(VarLongCoder.of(), org.apache.beam.sdk.coders.ListCoder.of(VarLongCoder.of()));
    }

    @Override
    public org.apache.beam.sdk.coders.Coder<KV<Long, List<Long>>> getDefaultOutputCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, org.apache.beam.sdk.coders.Coder<KV<Long, Long>> input) {
      return getAccumulatorCoder(registry, input);
    }
  }

  private static final class Explode extends DoFn<KV<Long, List<Long>>, AuctionCount> {
    @ProcessElement
    public void process(@Element KV<Long, List<Long>> most, OutputReceiver<AuctionCount> out) {
      for (long auction : most.getValue()) {
        out.output(new AuctionCount(auction, most.getKey()));
      }
    }
  }
}
