package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionCount;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 5, HOT_ITEMS: per sliding window, every auction with the most bids in it, with that number. */
final class Query5Model implements ReferenceModel<AuctionCount> {
  @Override
  public Collection<AuctionCount> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long size = config.windowSizeSec * 1000L;
    long period = config.windowPeriodSec * 1000L;
    Map<Long, Map<Long, Long>> bidsPerAuctionByWindow = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().bid != null) {
        for (long start : WindowMath.slidingStarts(e.getTimestamp().getMillis(), size, period)) {
          bidsPerAuctionByWindow.computeIfAbsent(start, k -> new HashMap<>())
              .merge(e.getValue().bid.auction, 1L, Long::sum);
        }
      }
    }
    List<AuctionCount> out = new ArrayList<>();
    for (Map<Long, Long> bidsPerAuction : bidsPerAuctionByWindow.values()) {
      long most = Collections.max(bidsPerAuction.values());
      bidsPerAuction.forEach((auction, bids) -> {
        if (bids == most) {
          out.add(new AuctionCount(auction, bids));
        }
      });
    }
    return out;
  }
}
