package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 13, BOUNDED_SIDE_INPUT_JOIN: every bid, its extra replaced by the side input's row for
 * {@code bidder % 500}. The side input's rows are 0..499, each holding its own number as text.
 */
final class Query13Model implements ReferenceModel<Bid> {
  static final long SIDE_INPUT_ROWS = 500;

  @Override
  public Collection<Bid> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<Bid> out = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      Bid b = e.getValue().bid;
      if (b != null) {
        out.add(new Bid(b.auction, b.bidder, b.price, b.dateTime, Long.toString(b.bidder % SIDE_INPUT_ROWS)));
      }
    }
    return out;
  }
}
