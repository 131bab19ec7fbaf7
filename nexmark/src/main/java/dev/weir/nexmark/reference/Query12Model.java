package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 12, PROCESSING_TIME_WINDOWS: per bidder, panes of the global window, each firing
 * windowSizeSec seconds of processing time after its first bid and holding the bids that
 * arrived until then (discarding, so each bid is in one pane).
 */
public final class Query12Model implements ReferenceModel<BidsPerSession> {
  /**
   * Without control of the clock only each bidder's total over its panes is known: the view
   * that {@code Query12.checked} gives.
   */
  @Override
  public Collection<BidsPerSession> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    Map<Long, Long> totals = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      if (e.getValue().bid != null) {
        totals.merge(e.getValue().bid.bidder, 1L, Long::sum);
      }
    }
    List<BidsPerSession> out = new ArrayList<>();
    totals.forEach((bidder, bids) -> out.add(new BidsPerSession(bidder, bids)));
    return out;
  }

  /**
   * The panes when group i arrives at processing time {@code i * clockStepMs} and, after the last
   * group, the clock moves past every pane still open, then the input ends. A pane fires once
   * the clock has reached its first bid's arrival plus windowSizeSec; the delay must not be a
   * multiple of the step, so that no pane is due exactly when a group arrives (whether it fires
   * first is then moot). When the input ends the watermark passes the end of the global window
   * and every bidder's window closes with an ON_TIME pane, which Beam fires even when empty (the
   * default on-time behaviour, FIRE_ALWAYS): here always empty, a count of 0.
   */
  public static List<BidsPerSession> panes(
      List<List<TimestampedValue<Event>>> groups, long clockStepMs, NexmarkConfig config) {
    long delayMs = config.windowSizeSec * 1000L;
    if (delayMs % clockStepMs == 0) {
      throw new IllegalArgumentException("A delay of " + delayMs + " ms is a multiple of the clock step " + clockStepMs);
    }
    Map<Long, long[]> open = new HashMap<>(); // bidder -> {due at, bids}
    List<BidsPerSession> out = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      long now = i * clockStepMs;
      for (Iterator<Map.Entry<Long, long[]>> it = open.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, long[]> pane = it.next();
        if (pane.getValue()[0] <= now) {
          out.add(new BidsPerSession(pane.getKey(), pane.getValue()[1]));
          it.remove();
        }
      }
      for (TimestampedValue<Event> e : groups.get(i)) {
        if (e.getValue().bid != null) {
          open.computeIfAbsent(e.getValue().bid.bidder, k -> new long[] {now + delayMs, 0})[1]++;
        }
      }
    }
    open.forEach((bidder, pane) -> out.add(new BidsPerSession(bidder, pane[1])));
    out.stream().map(BidsPerSession::personId).distinct().toList()
        .forEach(bidder -> out.add(new BidsPerSession(bidder, 0)));
    return out;
  }
}
