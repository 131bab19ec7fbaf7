package dev.weir.nexmark.queries;

import dev.weir.nexmark.model.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.joda.time.Instant;

/**
 * The custom merging windows that decide which bids count for an auction. An auction's window
 * runs from its start to its expiry; a bid's window starts at the bid and lasts twice the
 * expected auction duration. Per auction id, every bid window that starts before the auction's
 * window ends merges into it; bid windows that merge into no auction produce nothing.
 */
public final class AuctionOrBidWindowFn extends WindowFn<Event, AuctionOrBidWindowFn.AuctionOrBidWindow> {
  private final long bidWindowMs;

  public AuctionOrBidWindowFn(long expectedAuctionDurationMs) {
    this.bidWindowMs = 2 * expectedAuctionDurationMs;
  }

  /** An interval for one auction id, either the auction's own or one of a bid's. */
  public static final class AuctionOrBidWindow extends IntervalWindow {
    final long auction;
    final boolean isAuctionWindow;

    AuctionOrBidWindow(Instant start, Instant end, long auction, boolean isAuctionWindow) {
      super(start, end);
      this.auction = auction;
      this.isAuctionWindow = isAuctionWindow;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof AuctionOrBidWindow && super.equals(o) && ((AuctionOrBidWindow) o).auction == auction
          && ((AuctionOrBidWindow) o).isAuctionWindow == isAuctionWindow;
    }

    @Override
    public int hashCode() {
      return Objects.hash(super.hashCode(), auction, isAuctionWindow);
    }

    @Override
    public String toString() {
      return (isAuctionWindow ? "auction " : "bid on ") + auction + " " + super.toString();
    }
  }

  @Override
  public Collection<AuctionOrBidWindow> assignWindows(AssignContext c) {
    Event e = c.element();
    if (e.newAuction != null) {
      return List.of(new AuctionOrBidWindow(c.timestamp(), e.newAuction.expires, e.newAuction.id, true));
    }
    if (e.bid != null) {
      return List.of(new AuctionOrBidWindow(c.timestamp(), c.timestamp().plus(bidWindowMs), e.bid.auction, false));
    }
    throw new IllegalArgumentException("Only auctions and bids have auction-or-bid windows, not " + e);
  }

  @Override
  public void mergeWindows(MergeContext c) throws Exception {
    Map<Long, AuctionOrBidWindow> auctions = new HashMap<>();
    Map<Long, List<AuctionOrBidWindow>> bids = new HashMap<>();
    for (AuctionOrBidWindow w : c.windows()) {
      if (w.isAuctionWindow) {
        auctions.put(w.auction, w);
      } else {
        bids.computeIfAbsent(w.auction, k -> new ArrayList<>()).add(w);
      }
    }
    for (AuctionOrBidWindow auction : auctions.values()) {
      List<AuctionOrBidWindow> merged = new ArrayList<>();
      merged.add(auction);
      for (AuctionOrBidWindow bid : bids.getOrDefault(auction.auction, List.of())) {
        if (bid.start().isBefore(auction.end())) {
          merged.add(bid);
        }
      }
      if (merged.size() > 1) {
        c.merge(merged, auction);
      }
    }
  }

  @Override
  public boolean isCompatible(WindowFn<?, ?> other) {
    return other instanceof AuctionOrBidWindowFn && ((AuctionOrBidWindowFn) other).bidWindowMs == bidWindowMs;
  }

  @Override
  public Coder<AuctionOrBidWindow> windowCoder() {
    return WindowCoder.INSTANCE;
  }

  @Override
  public WindowMappingFn<AuctionOrBidWindow> getDefaultWindowMappingFn() {
    throw new UnsupportedOperationException("Auction-or-bid windows cannot be side inputs");
  }

  /** Interval, auction id, and which kind of window. */
  static final class WindowCoder extends CustomCoder<AuctionOrBidWindow> {
    static final WindowCoder INSTANCE = new WindowCoder();

    @Override
    public void encode(AuctionOrBidWindow w, OutputStream out) throws IOException {
      IntervalWindow.getCoder().encode(w, out);
      VarLongCoder.of().encode(w.auction, out);
      BooleanCoder.of().encode(w.isAuctionWindow, out);
    }

    @Override
    public AuctionOrBidWindow decode(InputStream in) throws IOException {
      IntervalWindow interval = IntervalWindow.getCoder().decode(in);
      return new AuctionOrBidWindow(interval.start(), interval.end(), VarLongCoder.of().decode(in),
          BooleanCoder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
