package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionPrice;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;

/** Query 2, SELECTION: auction and price of the bids on every {@code auctionSkip}-th auction. */
public final class Query2 implements NexmarkQuery<AuctionPrice> {
  @Override
  public int number() {
    return 2;
  }

  @Override
  public String name() {
    return "SELECTION";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<AuctionPrice>> transform(NexmarkConfig config) {
    long skip = config.auctionSkip;
    return new PTransform<>("Selection") {
      @Override
      public PCollection<AuctionPrice> expand(PCollection<Event> events) {
        return events.apply(ParDo.of(new Select(skip))).setCoder(AuctionPrice.AuctionPriceCoder.INSTANCE);
      }
    };
  }

  private static final class Select extends DoFn<Event, AuctionPrice> {
    private final long skip;

    Select(long skip) {
      this.skip = skip;
    }

    @ProcessElement
    public void process(@Element Event event, OutputReceiver<AuctionPrice> out) {
      if (event.bid != null && event.bid.auction % skip == 0) {
        out.output(new AuctionPrice(event.bid.auction, event.bid.price));
      }
    }
  }
}
