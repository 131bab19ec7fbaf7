package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.SellerPrice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 6, AVERAGE_SELLING_PRICE_BY_SELLER, its final pane per seller: the mean price, rounded
 * to the nearest cent, of the seller's 10 latest winning bids, latest by the bid's time and, at
 * equal times, by price (Beam orders them by time then price and keeps the last 10).
 */
final class Query6Model implements ReferenceModel<SellerPrice> {
  private static final int LATEST = 10;

  @Override
  public Collection<SellerPrice> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    Map<Long, List<Bid>> bySeller = new HashMap<>();
    for (TimestampedValue<AuctionBid> w : WinningBidsModel.of(events, config)) {
      bySeller.computeIfAbsent(w.getValue().auction().seller, k -> new ArrayList<>()).add(w.getValue().bid());
    }
    List<SellerPrice> out = new ArrayList<>();
    bySeller.forEach((seller, bids) -> {
      // Latest first: by time, then price, both descending.
      bids.sort((a, b) -> a.dateTime.getMillis() != b.dateTime.getMillis()
          ? Long.compare(b.dateTime.getMillis(), a.dateTime.getMillis())
          : Long.compare(b.price, a.price));
      List<Bid> latest = bids.subList(0, Math.min(LATEST, bids.size()));
      long sum = 0;
      for (Bid b : latest) {
        sum += b.price;
      }
      out.add(new SellerPrice(seller, Math.round(sum / (double) latest.size())));
    });
    return out;
  }
}
