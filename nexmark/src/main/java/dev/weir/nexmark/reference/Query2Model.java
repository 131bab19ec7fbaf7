package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionPrice;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 2, SELECTION: auction and price of every bid on an auction whose id is a multiple of auctionSkip. */
final class Query2Model implements ReferenceModel<AuctionPrice> {
  @Override
  public Collection<AuctionPrice> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<AuctionPrice> out = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      Bid b = e.getValue().bid;
      if (b != null && Math.floorMod(b.auction, (long) config.auctionSkip) == 0) {
        out.add(new AuctionPrice(b.auction, b.price));
      }
    }
    return out;
  }
}
