package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Query 13, BOUNDED_SIDE_INPUT_JOIN: every bid joined with a bounded map side input (rows
 * 0..sideInputRowCount-1, each its own number as text) on {@code bidder % sideInputRowCount};
 * the joined value replaces the bid's extra.
 */
public final class Query13 implements NexmarkQuery<Bid> {
  static final int SIDE_INPUT_ROWS = 500;

  @Override
  public int number() {
    return 13;
  }

  @Override
  public String name() {
    return "BOUNDED_SIDE_INPUT_JOIN";
  }

  static List<KV<Long, String>> sideInputRows() {
    return LongStream.range(0, SIDE_INPUT_ROWS).mapToObj(i -> KV.of(i, String.valueOf(i))).toList();
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Bid>> transform(NexmarkConfig config) {
    return new PTransform<>("BoundedSideInputJoin") {
      @Override
      public PCollection<Bid> expand(PCollection<Event> events) {
        PCollectionView<Map<Long, String>> side = events.getPipeline()
            .apply("SideInput", Create.of(sideInputRows()).withCoder(KvCoder.of(VarLongCoder.of(), StringUtf8Coder.of())))
            .apply(View.asMap());
        return events
            .apply("Join", ParDo.of(new Join(side)).withSideInputs(side))
            .setCoder(Bid.BidCoder.INSTANCE);
      }
    };
  }

  private static final class Join extends DoFn<Event, Bid> {
    private final PCollectionView<Map<Long, String>> side;

    Join(PCollectionView<Map<Long, String>> side) {
      this.side = side;
    }

    @ProcessElement
    public void process(ProcessContext c) {
      Bid b = c.element().bid;
      if (b != null) {
        c.output(new Bid(b.auction, b.bidder, b.price, b.dateTime, c.sideInput(side).get(b.bidder % SIDE_INPUT_ROWS)));
      }
    }
  }
}
