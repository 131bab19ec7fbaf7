package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

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

  static String extra(long bidder, Instant start, Instant end) {
    return (bidder % Query13.SIDE_INPUT_ROWS) + ":" + start + ":" + end;
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

  @Override
  public Collection<Bid> model(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long gap = Duration.standardMinutes(config.sessionGapMinutes).getMillis();
    Map<Long, TreeMap<Long, List<Bid>>> byBidder = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().bid != null) {
        byBidder.computeIfAbsent(e.getValue().bid.bidder, k -> new TreeMap<>())
            .computeIfAbsent(e.getTimestamp().getMillis(), k -> new ArrayList<>()).add(e.getValue().bid);
      }
    }
    List<Bid> out = new ArrayList<>();
    byBidder.forEach((bidder, byTime) -> {
      List<Bid> session = new ArrayList<>();
      long start = 0;
      long end = Long.MIN_VALUE;
      for (Map.Entry<Long, List<Bid>> t : byTime.entrySet()) {
        if (!session.isEmpty() && t.getKey() >= end) {
          flush(out, bidder, session, start, end);
          session.clear();
        }
        if (session.isEmpty()) {
          start = t.getKey();
        }
        session.addAll(t.getValue());
        end = Math.max(end, t.getKey() + gap);
      }
      flush(out, bidder, session, start, end);
    });
    return out;
  }

  private static void flush(List<Bid> out, long bidder, List<Bid> session, long start, long end) {
    for (Bid b : session) {
      out.add(new Bid(b.auction, b.bidder, b.price, b.dateTime, extra(bidder, new Instant(start), new Instant(end))));
    }
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
