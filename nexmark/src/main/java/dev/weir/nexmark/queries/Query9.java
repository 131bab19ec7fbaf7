package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/** Query 9, WINNING_BIDS: the winning bid of every auction, through custom merging windows. */
public final class Query9 implements NexmarkQuery<AuctionBid> {
  @Override
  public int number() {
    return 9;
  }

  @Override
  public String name() {
    return "WINNING_BIDS";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<AuctionBid>> transform(NexmarkConfig config) {
    return new WinningBids(config);
  }

}
