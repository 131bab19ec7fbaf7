package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 7, HIGHEST_BID: per fixed window of windowSizeSec, every bid at the window's highest price. */
final class Query7Model implements ReferenceModel<Bid> {
  @Override
  public Collection<Bid> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long size = config.windowSizeSec * 1000L;
    Map<Long, List<Bid>> highestByWindow = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      Bid b = e.getValue().bid;
      if (b == null) {
        continue;
      }
      List<Bid> highest = highestByWindow.computeIfAbsent(WindowMath.fixedStart(e.getTimestamp().getMillis(), size),
          k -> new ArrayList<>());
      if (!highest.isEmpty() && b.price > highest.get(0).price) {
        highest.clear();
      }
      if (highest.isEmpty() || b.price == highest.get(0).price) {
        highest.add(b);
      }
    }
    List<Bid> out = new ArrayList<>();
    highestByWindow.values().forEach(out::addAll);
    return out;
  }
}
