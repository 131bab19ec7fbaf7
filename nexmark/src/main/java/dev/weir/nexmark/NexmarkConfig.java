package dev.weir.nexmark;

import java.io.Serializable;

/**
 * What a Nexmark run generates and how the queries window it, with Nexmark's usual defaults.
 * Mutable only while being set up; the generator and queries take it as a value.
 */
public final class NexmarkConfig implements Serializable {
  /** Events to generate. */
  public long numEvents = 100_000;
  /** Parallel generators the bounded source splits into; they share one timeline. */
  public int numEventGenerators = 100;
  /** Events per second, first and next rate (equal: a constant rate). */
  public int firstEventRate = 10_000;
  public int nextEventRate = 10_000;
  /** How the rate moves between the two: SINE or SQUARE, over {@link #ratePeriodSec}. */
  public RateShape rateShape = RateShape.SINE;
  public int ratePeriodSec = 600;
  public int avgPersonByteSize = 200;
  public int avgAuctionByteSize = 500;
  public int avgBidByteSize = 100;
  /** A hot auction, seller or bidder is chosen with probability 1 - 1/ratio. */
  public int hotAuctionRatio = 2;
  public int hotSellersRatio = 4;
  public int hotBiddersRatio = 4;
  public int numInFlightAuctions = 100;
  public int numActivePeople = 1000;
  /** Events are permuted within aligned groups of this many event numbers. */
  public long outOfOrderGroupSize = 1;
  public int windowSizeSec = 10;
  public int windowPeriodSec = 5;
  /** Query 2 keeps bids on auctions whose id is a multiple of this. */
  public int auctionSkip = 123;
  public int fanout = 5;
  /** Query 10 writes its log files under this directory; none when null. */
  public String outputPath;
  /** Query 10 fires a pane after this many events (and query 11 in Beam's version). */
  public long maxLogEvents = 100_000;
  /** Query 14's session gap, in minutes. */
  public int sessionGapMinutes = 10;
  /** Unbounded source: hand out each event no earlier than its time after the start, in wall-clock time. */
  public boolean rateLimited = false;
  /**
   * Unbounded, rate-limited: the wall-clock time (epoch ms) every reader counts its events' times
   * from, so that a measurement downstream knows when each event arrived; -1: each reader counts
   * from its own start.
   */
  public long streamStartWallMs = -1;
  /** Unbounded source: the probability that an event arrives late (after later events). */
  public double probDelayedEvent = 0.0;
  /** Unbounded source: the most a delayed event arrives after its event time. */
  public int occasionalDelaySec = 3;
  /** Query 3 forgets a seller's state after this long without events. */
  public int maxAuctionsWaitingTime = 600;

  /** How the event rate changes over a period. */
  public enum RateShape {
    SQUARE,
    SINE
  }

  public NexmarkConfig copy() {
    NexmarkConfig c = new NexmarkConfig();
    c.numEvents = numEvents;
    c.numEventGenerators = numEventGenerators;
    c.firstEventRate = firstEventRate;
    c.nextEventRate = nextEventRate;
    c.rateShape = rateShape;
    c.ratePeriodSec = ratePeriodSec;
    c.avgPersonByteSize = avgPersonByteSize;
    c.avgAuctionByteSize = avgAuctionByteSize;
    c.avgBidByteSize = avgBidByteSize;
    c.hotAuctionRatio = hotAuctionRatio;
    c.hotSellersRatio = hotSellersRatio;
    c.hotBiddersRatio = hotBiddersRatio;
    c.numInFlightAuctions = numInFlightAuctions;
    c.numActivePeople = numActivePeople;
    c.outOfOrderGroupSize = outOfOrderGroupSize;
    c.windowSizeSec = windowSizeSec;
    c.windowPeriodSec = windowPeriodSec;
    c.auctionSkip = auctionSkip;
    c.fanout = fanout;
    c.maxAuctionsWaitingTime = maxAuctionsWaitingTime;
    c.sessionGapMinutes = sessionGapMinutes;
    c.outputPath = outputPath;
    c.maxLogEvents = maxLogEvents;
    c.rateLimited = rateLimited;
    c.streamStartWallMs = streamStartWallMs;
    c.probDelayedEvent = probDelayedEvent;
    c.occasionalDelaySec = occasionalDelaySec;
    return c;
  }

  @Override
  public String toString() {
    return "numEvents=" + numEvents + ", numEventGenerators=" + numEventGenerators + ", rate=" + firstEventRate
        + "/" + nextEventRate + "/s " + rateShape;
  }
}
