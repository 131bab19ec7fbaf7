package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 12, PROCESSING_TIME_WINDOWS: bids per bidder in windows of processing time, as panes of
 * the global window that fire {@code windowSizeSec} seconds after their first bid, discarding.
 * How the bids fall into panes depends on the clock, so a run on a real clock is checked on each
 * bidder's total over all panes ({@link #checked}); with a clock under control (a TestStream)
 * the panes themselves are. On WeirRunner in batch it needs {@code --processingTimeTimers=ALLOW}.
 */
public final class Query12 implements NexmarkQuery<BidsPerSession> {
  @Override
  public int number() {
    return 12;
  }

  @Override
  public String name() {
    return "PROCESSING_TIME_WINDOWS";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<BidsPerSession>> transform(NexmarkConfig config) {
    Duration delay = Duration.standardSeconds(config.windowSizeSec);
    return new PTransform<>("ProcessingTimeWindows") {
      @Override
      public PCollection<BidsPerSession> expand(PCollection<Event> events) {
        return events
            .apply("Bidders", ParDo.of(new BidderCounts.Bidders()))
            .setCoder(VarLongCoder.of())
            .apply(Window.<Long>into(new GlobalWindows())
                .triggering(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(delay)))
                .discardingFiredPanes()
                .withAllowedLateness(Duration.ZERO))
            .apply(Count.perElement())
            .apply("PerBidder", ParDo.of(new BidderCounts.ToBidsPerSession()))
            .setCoder(SerializableCoder.of(BidsPerSession.class));
      }
    };
  }

  /** Each bidder's bids over all panes, in one pane at the end. */
  @Override
  public PCollection<BidsPerSession> checked(PCollection<BidsPerSession> output) {
    return output
        .apply("ByBidder", ParDo.of(new ByBidder()))
        .setCoder(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()))
        // Fires once, when the input ends; Beam rejects the default trigger itself on unbounded
        // input in the global window, though it would do the same.
        .apply("OnePane", Window.<KV<Long, Long>>configure()
            .triggering(AfterWatermark.pastEndOfWindow())
            .discardingFiredPanes()
            .withAllowedLateness(Duration.ZERO))
        .apply(Sum.longsPerKey())
        .apply("Total", ParDo.of(new BidderCounts.ToBidsPerSession()))
        .setCoder(SerializableCoder.of(BidsPerSession.class));
  }


  private static final class ByBidder extends DoFn<BidsPerSession, KV<Long, Long>> {
    @ProcessElement
    public void process(@Element BidsPerSession b, OutputReceiver<KV<Long, Long>> out) {
      out.output(KV.of(b.personId(), b.bidsPerSession()));
    }
  }
}
