package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.AuctionBid;
import dev.weir.nexmark.model.CategoryPrice;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 4, AVERAGE_PRICE_FOR_CATEGORY: per sliding window (windowSizeSec every windowPeriodSec)
 * and category, the mean winning price of the auctions that closed in the window, rounded to
 * the nearest cent; each window fires once, so every result is its window's last pane.
 */
final class Query4Model implements ReferenceModel<CategoryPrice> {
  @Override
  public Collection<CategoryPrice> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long size = config.windowSizeSec * 1000L;
    long period = config.windowPeriodSec * 1000L;
    // (window start, category) -> {sum of prices, number of auctions}
    Map<List<Long>, long[]> totals = new HashMap<>();
    for (TimestampedValue<AuctionBid> w : WinningBidsModel.of(events, config)) {
      for (long start : WindowMath.slidingStarts(w.getTimestamp().getMillis(), size, period)) {
        long[] t = totals.computeIfAbsent(List.of(start, w.getValue().auction().category), k -> new long[2]);
        t[0] += w.getValue().bid().price;
        t[1] += 1;
      }
    }
    List<CategoryPrice> out = new ArrayList<>();
    totals.forEach((key, t) -> out.add(new CategoryPrice(key.get(1), Math.round(t[0] / (double) t[1]), true)));
    return out;
  }
}
