package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Max;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * Query 7, HIGHEST_BID: per fixed window, the bids at the window's highest price. The maximum
 * is computed with fanout and joined back as a side input of the same window.
 */
public final class Query7 implements NexmarkQuery<Bid> {
  @Override
  public int number() {
    return 7;
  }

  @Override
  public String name() {
    return "HIGHEST_BID";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Bid>> transform(NexmarkConfig config) {
    Duration size = Duration.standardSeconds(config.windowSizeSec);
    int fanout = config.fanout;
    return new PTransform<>("HighestBid") {
      @Override
      public PCollection<Bid> expand(PCollection<Event> events) {
        PCollection<Bid> bids = events
            .apply("Bids", ParDo.of(new Bids()))
            .setCoder(Bid.BidCoder.INSTANCE)
            .apply(Window.into(FixedWindows.of(size)));
        PCollectionView<Long> max = bids
            .apply("Prices", MapElements.into(TypeDescriptors.longs()).via((Bid b) -> b.price))
            .setCoder(VarLongCoder.of())
            .apply(Max.longsGlobally().withFanout(fanout).asSingletonView());
        return bids
            .apply("AtMax", ParDo.of(new AtMax(max)).withSideInputs(max))
            .setCoder(Bid.BidCoder.INSTANCE);
      }
    };
  }

  private static final class Bids extends DoFn<Event, Bid> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Bid> out) {
      if (e.bid != null) {
        out.output(e.bid);
      }
    }
  }

  private static final class AtMax extends DoFn<Bid, Bid> {
    private final PCollectionView<Long> max;

    AtMax(PCollectionView<Long> max) {
      this.max = max;
    }

    @ProcessElement
    public void process(ProcessContext c) {
      if (c.element().price == c.sideInput(max)) {
        c.output(c.element());
      }
    }
  }
}
