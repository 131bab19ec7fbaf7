package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 1, CURRENCY_CONVERSION: every bid, its price in euros. Nexmark's rate is 0.89 euro a
 * dollar, prices are whole cents, rounded down (Beam: {@code price * 89 / 100}).
 */
final class Query1Model implements ReferenceModel<Bid> {
  private static final long EURO_CENTS_PER_100_DOLLAR_CENTS = 89;

  @Override
  public Collection<Bid> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<Bid> out = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      Bid b = e.getValue().bid;
      if (b != null) {
        long euros = Math.floorDiv(b.price * EURO_CENTS_PER_100_DOLLAR_CENTS, 100);
        out.add(new Bid(b.auction, b.bidder, euros, b.dateTime, b.extra));
      }
    }
    return out;
  }
}
