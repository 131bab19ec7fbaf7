package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * The winning bid of each auction, shared by the models of queries 4, 6 and 9 (never by their
 * pipelines): among the bids on the auction placed before it expires and at or above its
 * reserve, the highest, and of equal highest ones the earliest. The result's timestamp is the
 * last instant of the auction ({@code expires - 1 ms}), where its window closes.
 */
final class WinningBidsModel {
  private WinningBidsModel() {}

  static List<TimestampedValue<AuctionBid>> of(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<Auction> auctions = new ArrayList<>();
    Map<Long, List<TimestampedValue<Bid>>> bids = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().newAuction != null) {
        auctions.add(e.getValue().newAuction);
      }
      Bid b = e.getValue().bid;
      if (b != null) {
        bids.computeIfAbsent(b.auction, k -> new ArrayList<>()).add(TimestampedValue.of(b, e.getTimestamp()));
      }
    }
    List<TimestampedValue<AuctionBid>> out = new ArrayList<>();
    for (Auction auction : auctions) {
      Bid winner = null;
      for (TimestampedValue<Bid> candidate : bids.getOrDefault(auction.id, List.of())) {
        Bid b = candidate.getValue();
        if (!candidate.getTimestamp().isBefore(auction.expires) || b.price < auction.reserve) {
          continue;
        }
        // Strictly better only: of bids equal in price and time the first in the stream stays.
        if (winner == null || b.price > winner.price
            || (b.price == winner.price && b.dateTime.getMillis() < winner.dateTime.getMillis())) {
          winner = b;
        }
      }
      if (winner != null) {
        out.add(TimestampedValue.of(new AuctionBid(auction, winner), auction.expires.minus(1)));
      }
    }
    return out;
  }
}
