package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;

/** Query 1, CURRENCY_CONVERSION: every bid with its price from dollars to euros (x 89/100). */
public final class Query1 implements NexmarkQuery<Bid> {
  @Override
  public int number() {
    return 1;
  }

  @Override
  public String name() {
    return "CURRENCY_CONVERSION";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Bid>> transform(NexmarkConfig config) {
    return new PTransform<>("CurrencyConversion") {
      @Override
      public PCollection<Bid> expand(PCollection<Event> events) {
        return events.apply(ParDo.of(new ToEuros())).setCoder(Bid.BidCoder.INSTANCE);
      }
    };
  }

  private static final class ToEuros extends DoFn<Event, Bid> {
    @ProcessElement
    public void process(@Element Event event, OutputReceiver<Bid> out) {
      if (event.bid != null) {
        Bid bid = event.bid;
        out.output(new Bid(bid.auction, bid.bidder, bid.price * 89 / 100, bid.dateTime, bid.extra));
      }
    }
  }
}
