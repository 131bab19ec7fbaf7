package dev.weir.nexmark.queries;

import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/** The two ends of counting bids per bidder, shared by queries 11 and 12. */
final class BidderCounts {
  private BidderCounts() {}

  /** The bidder of every bid. */
  static final class Bidders extends DoFn<Event, Long> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Long> out) {
      if (e.bid != null) {
        out.output(e.bid.bidder);
      }
    }
  }

  /** A (bidder, count) pair as the queries' output type. */
  static final class ToBidsPerSession extends DoFn<KV<Long, Long>, BidsPerSession> {
    @ProcessElement
    public void process(@Element KV<Long, Long> count, OutputReceiver<BidsPerSession> out) {
      out.output(new BidsPerSession(count.getKey(), count.getValue()));
    }
  }
}
