package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.CategoryPrice;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Mean;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 4, AVERAGE_PRICE_FOR_CATEGORY: per sliding window and category, the average price of
 * the winning bids of the auctions that closed in it.
 */
public final class Query4 implements NexmarkQuery<CategoryPrice> {
  @Override
  public int number() {
    return 4;
  }

  @Override
  public String name() {
    return "AVERAGE_PRICE_FOR_CATEGORY";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<CategoryPrice>> transform(NexmarkConfig config) {
    Duration size = Duration.standardSeconds(config.windowSizeSec);
    Duration period = Duration.standardSeconds(config.windowPeriodSec);
    int fanout = config.fanout;
    return new PTransform<>("AveragePriceForCategory") {
      @Override
      public PCollection<CategoryPrice> expand(PCollection<Event> events) {
        return events
            .apply(new WinningBids(config))
            .apply("CategoryPrice", ParDo.of(new ToCategoryPrice()))
            .setCoder(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()))
            .apply(Window.into(SlidingWindows.of(size).every(period)))
            .apply(Combine.<Long, Long, Double>perKey(Mean.<Long>of()).withHotKeyFanout(fanout))
            .apply("Round", ParDo.of(new Round()))
            .setCoder(SerializableCoder.of(CategoryPrice.class));
      }
    };
  }

  private static final class ToCategoryPrice extends DoFn<AuctionBid, KV<Long, Long>> {
    @ProcessElement
    public void process(@Element AuctionBid w, OutputReceiver<KV<Long, Long>> out) {
      out.output(KV.of(w.auction().category, w.bid().price));
    }
  }

  private static final class Round extends DoFn<KV<Long, Double>, CategoryPrice> {
    @ProcessElement
    public void process(ProcessContext c) {
      c.output(new CategoryPrice(c.element().getKey(), Math.round(c.element().getValue()), c.pane().isLast()));
    }
  }
}
