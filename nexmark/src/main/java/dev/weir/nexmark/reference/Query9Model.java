package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 9, WINNING_BIDS: each auction that has a winning bid, with it. */
final class Query9Model implements ReferenceModel<AuctionBid> {
  @Override
  public Collection<AuctionBid> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<AuctionBid> out = new ArrayList<>();
    for (TimestampedValue<AuctionBid> w : WinningBidsModel.of(events, config)) {
      out.add(w.getValue());
    }
    return out;
  }
}
