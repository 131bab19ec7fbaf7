package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;

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

  @Override
  public Collection<AuctionBid> model(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<AuctionBid> out = new ArrayList<>();
    WinningBids.model(events, config).forEach(w -> out.add(w.getValue()));
    return out;
  }
}
