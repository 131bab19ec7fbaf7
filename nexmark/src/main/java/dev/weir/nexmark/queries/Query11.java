package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 11, USER_SESSIONS: bids per bidder per session, a session ending after
 * {@code windowSizeSec} seconds without bids. (Beam's version also fires early every
 * {@code maxLogEvents} bids; with the default of 100,000 that never happens in the suite.)
 */
public final class Query11 implements NexmarkQuery<BidsPerSession> {
  @Override
  public int number() {
    return 11;
  }

  @Override
  public String name() {
    return "USER_SESSIONS";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<BidsPerSession>> transform(NexmarkConfig config) {
    Duration gap = Duration.standardSeconds(config.windowSizeSec);
    return new PTransform<>("UserSessions") {
      @Override
      public PCollection<BidsPerSession> expand(PCollection<Event> events) {
        return events
            .apply("Bidders", ParDo.of(new BidderCounts.Bidders()))
            .setCoder(VarLongCoder.of())
            .apply(Window.into(Sessions.withGapDuration(gap)))
            .apply(Count.perElement())
            .apply("PerSession", ParDo.of(new BidderCounts.ToBidsPerSession()))
            .setCoder(SerializableCoder.of(BidsPerSession.class));
      }
    };
  }

}
