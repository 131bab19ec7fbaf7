package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.Map;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Duration;

/**
 * Query 14, SESSION_SIDE_INPUT_JOIN: bids grouped into sessions per bidder, each bid joined with
 * the bounded map side input of query 13 on {@code bidder % 500}; the bid's extra becomes the
 * joined value, the session's start and its end.
 */
public final class Query14 implements NexmarkQuery<Bid> {
  @Override
  public int number() {
    return 14;
  }

  @Override
  public String name() {
    return "SESSION_SIDE_INPUT_JOIN";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Bid>> transform(NexmarkConfig config) {
    Duration gap = Duration.standardMinutes(config.sessionGapMinutes);
    return new PTransform<>("SessionSideInputJoin") {
      @Override
      public PCollection<Bid> expand(PCollection<Event> events) {
        PCollectionView<java.util.Map<Long, String>> side = events.getPipeline()
            .apply("SideInput", Create.of(Query13.sideInputRows())
                .withCoder(KvCoder.of(VarLongCoder.of(), StringUtf8Coder.of())))
            .apply(View.asMap());
        return events
            .apply("BidsByBidder", ParDo.of(new BidsByBidder()))
            .setCoder(KvCoder.of(VarLongCoder.of(), Bid.BidCoder.INSTANCE))
            .apply(Window.into(Sessions.withGapDuration(gap)))
            .apply(GroupByKey.create())
            .apply("Join", ParDo.of(new Join(side)).withSideInputs(side))
            .setCoder(Bid.BidCoder.INSTANCE)
            .apply("BackToGlobal", Window.into(new GlobalWindows()));
      }
    };
  }

  private static final class BidsByBidder extends DoFn<Event, KV<Long, Bid>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Bid>> out) {
      if (e.bid != null) {
        out.output(KV.of(e.bid.bidder, e.bid));
      }
    }
  }

  private static final class Join extends DoFn<KV<Long, Iterable<Bid>>, Bid> {
    private final PCollectionView<java.util.Map<Long, String>> side;

    Join(PCollectionView<java.util.Map<Long, String>> side) {
      this.side = side;
    }

    @ProcessElement
    public void process(ProcessContext c, BoundedWindow window) {
      IntervalWindow session = (IntervalWindow) window;
      long bidder = c.element().getKey();
      String joined = c.sideInput(side).get(bidder % Query13.SIDE_INPUT_ROWS);
      for (Bid b : c.element().getValue()) {
        c.output(new Bid(b.auction, b.bidder, b.price, b.dateTime, joined + ":" + session.start() + ":" + session.end()));
      }
    }
  }
}
