package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;

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

  static Bid inEuros(Bid bid) {
    return new Bid(bid.auction, bid.bidder, bid.price * 89 / 100, bid.dateTime, bid.extra);
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

  @Override
  public Collection<Bid> model(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<Bid> out = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().bid != null) {
        out.add(inEuros(e.getValue().bid));
      }
    }
    return out;
  }

  private static final class ToEuros extends DoFn<Event, Bid> {
    @ProcessElement
    public void process(@Element Event event, OutputReceiver<Bid> out) {
      if (event.bid != null) {
        out.output(inEuros(event.bid));
      }
    }
  }
}
