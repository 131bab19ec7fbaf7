package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 11, USER_SESSIONS: per bidder and session (gap windowSizeSec), how many bids. */
final class Query11Model implements ReferenceModel<BidsPerSession> {
  @Override
  public Collection<BidsPerSession> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    Map<Long, Sessions<Long>> byBidder = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().bid != null) {
        byBidder.computeIfAbsent(e.getValue().bid.bidder, k -> new Sessions<>())
            .add(e.getTimestamp().getMillis(), e.getValue().bid.bidder);
      }
    }
    List<BidsPerSession> out = new ArrayList<>();
    byBidder.forEach((bidder, sessions) -> {
      for (Sessions.Session<Long> s : sessions.sessions(config.windowSizeSec * 1000L)) {
        out.add(new BidsPerSession(bidder, s.elements().size()));
      }
    });
    return out;
  }
}
