package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.SellerPrice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 6, AVERAGE_SELLING_PRICE_BY_SELLER: per seller, the average of their last 10 winning
 * prices, in the global window with a trigger that fires on every winning bid, accumulating.
 * With {@code --windowTriggers=IGNORE} (Weir's batch default) each seller's pane fires once,
 * complete; with ALLOW (and on the DirectRunner) there are early panes too. The model is the
 * final pane of each seller, which is what gets checked.
 */
public final class Query6 implements NexmarkQuery<SellerPrice> {
  static final int LAST = 10;

  @Override
  public int number() {
    return 6;
  }

  @Override
  public String name() {
    return "AVERAGE_SELLING_PRICE_BY_SELLER";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<SellerPrice>> transform(NexmarkConfig config) {
    return new PTransform<>("AverageSellingPriceBySeller") {
      @Override
      public PCollection<SellerPrice> expand(PCollection<Event> events) {
        return events
            .apply(new WinningBids(config))
            .apply("BySeller", ParDo.of(new BySeller()))
            .setCoder(KvCoder.of(VarLongCoder.of(), Bid.BidCoder.INSTANCE))
            .apply(Window.<KV<Long, Bid>>into(new GlobalWindows())
                .triggering(Repeatedly.forever(AfterPane.elementCountAtLeast(1)))
                .accumulatingFiredPanes()
                .withAllowedLateness(Duration.ZERO))
            .apply(Combine.perKey(new LastBidsMean()))
            .apply("SellerPrice", ParDo.of(new ToSellerPrice()))
            .setCoder(SerializableCoder.of(SellerPrice.class));
      }
    };
  }

  /** The final pane of each seller: complete, whatever early panes came before it. */
  @Override
  public PCollection<SellerPrice> checked(PCollection<SellerPrice> output) {
    return output.apply("FinalPanes", ParDo.of(new FinalPanes<SellerPrice>())).setCoder(output.getCoder());
  }

  private static final class BySeller extends DoFn<AuctionBid, KV<Long, Bid>> {
    @ProcessElement
    public void process(@Element AuctionBid w, OutputReceiver<KV<Long, Bid>> out) {
      out.output(KV.of(w.auction().seller, w.bid()));
    }
  }

  /** Keeps the last {@link #LAST} bids by time (then price) and averages their prices. */
  static final class LastBidsMean extends Combine.CombineFn<Bid, List<Bid>, Long> {
    private static final Comparator<Bid> BY_TIME_THEN_PRICE =
        Comparator.comparing((Bid b) -> b.dateTime).thenComparingLong(b -> b.price);

    static List<Bid> last(List<Bid> bids) {
      List<Bid> sorted = new ArrayList<>(bids);
      sorted.sort(BY_TIME_THEN_PRICE);
      return new ArrayList<>(sorted.subList(Math.max(0, sorted.size() - LAST), sorted.size()));
    }

    static long mean(List<Bid> bids) {
      List<Bid> last = last(bids);
      if (last.isEmpty()) {
        return 0;
      }
      long sum = 0;
      for (Bid b : last) {
        sum += b.price;
      }
      return Math.round((double) sum / last.size());
    }

    @Override
    public List<Bid> createAccumulator() {
      return new ArrayList<>();
    }

    @Override
    public List<Bid> addInput(List<Bid> acc, Bid bid) {
      acc.add(bid);
      return last(acc);
    }

    @Override
    public List<Bid> mergeAccumulators(Iterable<List<Bid>> accs) {
      List<Bid> all = new ArrayList<>();
      accs.forEach(all::addAll);
      return last(all);
    }

    @Override
    public Long extractOutput(List<Bid> acc) {
      return mean(acc);
    }

    @Override
    public Coder<List<Bid>> getAccumulatorCoder(CoderRegistry registry, Coder<Bid> input) {
      return ListCoder.of(Bid.BidCoder.INSTANCE);
    }

    @Override
    public Coder<Long> getDefaultOutputCoder(CoderRegistry registry, Coder<Bid> input) {
      return VarLongCoder.of();
    }
  }

  private static final class ToSellerPrice extends DoFn<KV<Long, Long>, SellerPrice> {
    @ProcessElement
    public void process(@Element KV<Long, Long> kv, OutputReceiver<SellerPrice> out) {
      out.output(new SellerPrice(kv.getKey(), kv.getValue()));
    }
  }
}
