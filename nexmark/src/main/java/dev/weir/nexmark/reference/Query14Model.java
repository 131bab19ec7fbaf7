package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Query 14, SESSION_SIDE_INPUT_JOIN: every bid, its extra replaced by
 * {@code "<side input row>:<session start>:<session end>"}: the row of query 13's side input
 * for {@code bidder % 500}, the bidder's session (gap sessionGapMinutes) as ISO instants.
 */
final class Query14Model implements ReferenceModel<Bid> {
  @Override
  public Collection<Bid> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    Map<Long, Sessions<Bid>> byBidder = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      Bid b = e.getValue().bid;
      if (b != null) {
        byBidder.computeIfAbsent(b.bidder, k -> new Sessions<>()).add(e.getTimestamp().getMillis(), b);
      }
    }
    List<Bid> out = new ArrayList<>();
    byBidder.forEach((bidder, sessions) -> {
      for (Sessions.Session<Bid> s : sessions.sessions(config.sessionGapMinutes * 60_000L)) {
        String extra = (bidder % Query13Model.SIDE_INPUT_ROWS) + ":" + new Instant(s.startMs()) + ":" + new Instant(s.endMs());
        for (Bid b : s.elements()) {
          out.add(new Bid(b.auction, b.bidder, b.price, b.dateTime, extra));
        }
      }
    });
    return out;
  }
}
