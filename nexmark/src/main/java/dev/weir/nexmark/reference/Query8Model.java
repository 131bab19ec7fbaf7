package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.IdNameReserve;
import dev.weir.nexmark.model.Person;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 8, MONITOR_NEW_USERS: per fixed window of windowSizeSec, each auction whose seller joined
 * in the same window, as the seller's id and name with the auction's reserve.
 */
final class Query8Model implements ReferenceModel<IdNameReserve> {
  @Override
  public Collection<IdNameReserve> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long size = config.windowSizeSec * 1000L;
    Map<Long, Map<Long, Person>> joinedByWindow = new HashMap<>();
    for (TimestampedValue<Event> e : events) {
      Person p = e.getValue().newPerson;
      if (p != null) {
        joinedByWindow.computeIfAbsent(WindowMath.fixedStart(e.getTimestamp().getMillis(), size), k -> new HashMap<>())
            .put(p.id, p);
      }
    }
    List<IdNameReserve> out = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      Auction a = e.getValue().newAuction;
      if (a == null) {
        continue;
      }
      Person seller = joinedByWindow.getOrDefault(WindowMath.fixedStart(e.getTimestamp().getMillis(), size), Map.of())
          .get(a.seller);
      if (seller != null) {
        out.add(new IdNameReserve(seller.id, seller.name, a.reserve));
      }
    }
    return out;
  }
}
