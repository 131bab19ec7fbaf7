package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.NameCityStateId;
import dev.weir.nexmark.model.Person;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * Query 3, LOCAL_ITEM_SUGGESTION: every auction of category 10 with the name, city and state of
 * its seller, when the seller lives in Oregon, Idaho or California; the auction may come before
 * or after its seller. A seller's state is forgotten {@code maxAuctionsWaitingTime} seconds (of
 * event time) after the latest event of that seller: once the watermark has passed that time,
 * a later auction no longer finds the seller and a later seller no longer finds the auctions.
 */
public final class Query3Model implements ReferenceModel<NameCityStateId> {
  private static final Set<String> STATES = Set.of("OR", "ID", "CA");
  private static final long CATEGORY = 10;

  /**
   * With the watermark reaching the end of time only after the last event (batch, or a stream
   * that ends before any seller waited {@code maxAuctionsWaitingTime}): nothing is forgotten in
   * time to matter, so every auction meets its seller.
   */
  @Override
  public Collection<NameCityStateId> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    return expected(List.of(events), List.of(BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis()), config);
  }

  /**
   * The events arrive in {@code groups}; after group i the input watermark moves to {@code
   * watermarksMs.get(i)}, and a seller whose forget time lies before it is forgotten before the
   * next group arrives. Within a group the order of events does not change the result.
   */
  public static List<NameCityStateId> expected(
      List<List<TimestampedValue<Event>>> groups, List<Long> watermarksMs, NexmarkConfig config) {
    long waitMs = config.maxAuctionsWaitingTime * 1000L;
    Map<Long, Seller> sellers = new HashMap<>();
    List<NameCityStateId> out = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      for (TimestampedValue<Event> e : groups.get(i)) {
        Person p = e.getValue().newPerson;
        Auction a = e.getValue().newAuction;
        if (p != null && STATES.contains(p.state)) {
          Seller s = sellers.computeIfAbsent(p.id, k -> new Seller());
          s.latestMs = Math.max(s.latestMs, e.getTimestamp().getMillis());
          if (s.person == null) {
            s.person = p;
            s.waiting.forEach(w -> out.add(join(p, w)));
            s.waiting.clear();
          }
        } else if (a != null && a.category == CATEGORY) {
          Seller s = sellers.computeIfAbsent(a.seller, k -> new Seller());
          s.latestMs = Math.max(s.latestMs, e.getTimestamp().getMillis());
          if (s.person != null) {
            out.add(join(s.person, a));
          } else {
            s.waiting.add(a);
          }
        }
      }
      long watermark = watermarksMs.get(i);
      sellers.values().removeIf(s -> s.latestMs + waitMs < watermark);
    }
    return out;
  }

  private static NameCityStateId join(Person p, Auction a) {
    return new NameCityStateId(p.name, p.city, p.state, a.id);
  }

  /** What is known of one seller id: the person once seen, the auctions waiting for them. */
  private static final class Seller {
    Person person;
    final List<Auction> waiting = new ArrayList<>();
    long latestMs = Long.MIN_VALUE;
  }
}
