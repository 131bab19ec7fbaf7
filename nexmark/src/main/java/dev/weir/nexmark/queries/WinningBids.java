package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.generator.EventTimeline;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;

/**
 * The winning bid of every auction that has one: the highest bid at or above the reserve among
 * the bids that fall in the auction's window ({@link AuctionOrBidWindowFn}), the earliest one
 * on a tie. Queries 4, 6 and 9 build on it.
 */
public final class WinningBids extends PTransform<PCollection<Event>, PCollection<AuctionBid>> {
  private static final TupleTag<Auction> AUCTIONS = new TupleTag<>() {};
  private static final TupleTag<Bid> BIDS = new TupleTag<>() {};

  private final long expectedAuctionDurationMs;

  public WinningBids(NexmarkConfig config) {
    this.expectedAuctionDurationMs = expectedAuctionDurationMs(config);
  }

  /** How long the stream takes to open numInFlightAuctions auctions, at the slowest rate. */
  static long expectedAuctionDurationMs(NexmarkConfig config) {
    long us = new EventTimeline(config).longestDelayUs() * 50 / 3 * config.numInFlightAuctions;
    return (us + 999) / 1000;
  }

  @Override
  public PCollection<AuctionBid> expand(PCollection<Event> events) {
    PCollection<Event> windowed = events
        .apply("AuctionsAndBids", ParDo.of(new AuctionsAndBids()))
        .setCoder(Event.EventCoder.INSTANCE)
        .apply(Window.into(new AuctionOrBidWindowFn(expectedAuctionDurationMs)));
    PCollection<KV<Long, Auction>> auctions = windowed
        .apply("AuctionsById", ParDo.of(new AuctionsById()))
        .setCoder(KvCoder.of(VarLongCoder.of(), Auction.AuctionCoder.INSTANCE));
    PCollection<KV<Long, Bid>> bids = windowed
        .apply("BidsByAuction", ParDo.of(new BidsByAuction()))
        .setCoder(KvCoder.of(VarLongCoder.of(), Bid.BidCoder.INSTANCE));
    return KeyedPCollectionTuple.of(AUCTIONS, auctions)
        .and(BIDS, bids)
        .apply(CoGroupByKey.create())
        .apply("BestBid", ParDo.of(new BestBid()))
        .setCoder(SerializableCoder.of(AuctionBid.class));
  }

  /** Whether {@code a} beats {@code b}: a higher price, or the same price earlier. */
  static boolean beats(Bid a, Bid b) {
    return a.price > b.price || (a.price == b.price && a.dateTime.isBefore(b.dateTime));
  }

  private static final class AuctionsAndBids extends DoFn<Event, Event> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Event> out) {
      if (e.newAuction != null || e.bid != null) {
        out.output(e);
      }
    }
  }

  private static final class AuctionsById extends DoFn<Event, KV<Long, Auction>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Auction>> out) {
      if (e.newAuction != null) {
        out.output(KV.of(e.newAuction.id, e.newAuction));
      }
    }
  }

  private static final class BidsByAuction extends DoFn<Event, KV<Long, Bid>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Bid>> out) {
      if (e.bid != null) {
        out.output(KV.of(e.bid.auction, e.bid));
      }
    }
  }

  private static final class BestBid extends DoFn<KV<Long, CoGbkResult>, AuctionBid> {
    @ProcessElement
    public void process(@Element KV<Long, CoGbkResult> group, OutputReceiver<AuctionBid> out) {
      Auction auction = group.getValue().getOnly(AUCTIONS, null);
      if (auction == null) {
        return;
      }
      Bid best = null;
      for (Bid bid : group.getValue().getAll(BIDS)) {
        if (bid.price >= auction.reserve && (best == null || beats(bid, best))) {
          best = bid;
        }
      }
      if (best != null) {
        out.output(new AuctionBid(auction, best));
      }
    }
  }
}
