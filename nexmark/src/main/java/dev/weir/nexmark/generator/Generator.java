package dev.weir.nexmark.generator;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.Person;
import java.io.Serializable;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Random;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * One generator of the stream: events {@code firstEventId .. firstEventId + maxEvents - 1}, the
 * k-th of them at event number {@code firstEventNumber + k} of the shared timeline. Each event is
 * drawn from a {@link Random} seeded with its id, so its content is the same however the stream
 * is split. Within aligned groups of {@code outOfOrderGroupSize} event numbers, events come out
 * of order. Also yields the watermark: the time of the first event number of the current group.
 */
public final class Generator implements Iterator<TimestampedValue<Event>>, Serializable {
  private static final String[] FIRST_NAMES =
      {"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"};
  private static final String[] LAST_NAMES =
      {"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"};
  private static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  private static final String[] US_CITIES = {
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"
  };
  private static final int NUM_CATEGORIES = 5;

  private final NexmarkConfig config;
  private final EventTimeline timeline;
  private final long firstEventId;
  private final long maxEvents;
  private final long firstEventNumber;
  private long count;

  public Generator(NexmarkConfig config, long firstEventId, long maxEvents, long firstEventNumber) {
    this.config = config;
    this.timeline = new EventTimeline(config);
    this.firstEventId = firstEventId;
    this.maxEvents = maxEvents;
    this.firstEventNumber = firstEventNumber;
  }

  /** The whole stream of {@code config} from one generator. */
  public static Generator whole(NexmarkConfig config) {
    return new Generator(config, 0, config.numEvents, 0);
  }

  /** Events produced so far. */
  public long count() {
    return count;
  }

  /** Resumes after {@code count} events (from a checkpoint). */
  public void skipTo(long count) {
    this.count = count;
  }

  private long eventNumber(long n) {
    return firstEventNumber + n;
  }

  private long adjustedEventNumber(long n) {
    long e = eventNumber(n);
    long group = config.outOfOrderGroupSize;
    return (e / group) * group + (e * 953) % group;
  }

  /** The watermark after {@link #count()} events: no later event is earlier than this. */
  public Instant watermark() {
    long group = config.outOfOrderGroupSize;
    return new Instant(timeline.timestampMs((eventNumber(count) / group) * group));
  }

  @Override
  public boolean hasNext() {
    return count < maxEvents;
  }

  @Override
  public TimestampedValue<Event> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    TimestampedValue<Event> event = eventAt(count);
    count++;
    return event;
  }

  /** The event time of the event at position {@code n} of this generator, without making it. */
  public long timestampMsAt(long n) {
    return timeline.timestampMs(adjustedEventNumber(n));
  }

  /** The id of the event at position {@code n} of this generator. */
  public long eventIdAt(long n) {
    return firstEventId + adjustedEventNumber(n);
  }

  /** The event at position {@code n} of this generator; where the generator is does not change. */
  public TimestampedValue<Event> eventAt(long n) {
    long adjusted = adjustedEventNumber(n);
    long timestamp = timeline.timestampMs(adjusted);
    long id = firstEventId + adjusted;
    Random random = new LcgRandom(id);
    long rem = id % EventIds.PROPORTION_DENOMINATOR;
    Event event;
    if (rem < EventIds.PERSON_PROPORTION) {
      event = Event.of(person(id, random, timestamp));
    } else if (rem < EventIds.PERSON_PROPORTION + EventIds.AUCTION_PROPORTION) {
      event = Event.of(auction(adjusted, id, random, timestamp));
    } else {
      event = Event.of(bid(id, random, timestamp));
    }
    return TimestampedValue.of(event, new Instant(timestamp));
  }

  private Person person(long id, Random random, long timestamp) {
    long personId = EventIds.lastBase0PersonId(id) + EventIds.FIRST_PERSON_ID;
    String name = FIRST_NAMES[random.nextInt(FIRST_NAMES.length)] + " " + LAST_NAMES[random.nextInt(LAST_NAMES.length)];
    String email = Strings.next(random, 7) + "@" + Strings.next(random, 5) + ".com";
    StringBuilder card = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      if (i > 0) {
        card.append(' ');
      }
      // Four digits, zero-padded ("%04d" without a Formatter per group).
      int digits = random.nextInt(10000);
      card.append((char) ('0' + digits / 1000)).append((char) ('0' + digits / 100 % 10))
          .append((char) ('0' + digits / 10 % 10)).append((char) ('0' + digits % 10));
    }
    String city = US_CITIES[random.nextInt(US_CITIES.length)];
    String state = US_STATES[random.nextInt(US_STATES.length)];
    int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length();
    String extra = Strings.nextExtra(random, size, config.avgPersonByteSize);
    return new Person(personId, name, email, card.toString(), city, state, new Instant(timestamp), extra);
  }

  private Auction auction(long adjusted, long id, Random random, long timestamp) {
    long auctionId = EventIds.lastBase0AuctionId(id) + EventIds.FIRST_AUCTION_ID;
    long seller;
    if (random.nextInt(config.hotSellersRatio) > 0) {
      seller = (EventIds.lastBase0PersonId(id) / EventIds.HOT_BUCKET) * EventIds.HOT_BUCKET;
    } else {
      seller = EventIds.nextBase0PersonId(id, random, config.numActivePeople);
    }
    seller += EventIds.FIRST_PERSON_ID;
    long category = EventIds.FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    long initialBid = EventIds.nextPrice(random);
    // An auction lasts up to twice the time the stream takes to open numInFlightAuctions more.
    long eventsAhead = (long) config.numInFlightAuctions * EventIds.PROPORTION_DENOMINATOR / EventIds.AUCTION_PROPORTION;
    long horizon = timeline.timestampMs(adjusted + eventsAhead) - timestamp;
    long expires = timestamp + 1 + EventIds.nextLong(random, Math.max(horizon * 2, 1));
    String itemName = Strings.next(random, 20);
    String description = Strings.next(random, 100);
    long reserve = initialBid + EventIds.nextPrice(random);
    int size = 8 + itemName.length() + description.length() + 40;
    String extra = Strings.nextExtra(random, size, config.avgAuctionByteSize);
    return new Auction(auctionId, itemName, description, initialBid, reserve, new Instant(timestamp),
        new Instant(expires), seller, category, extra);
  }

  private Bid bid(long id, Random random, long timestamp) {
    long auction;
    if (random.nextInt(config.hotAuctionRatio) > 0) {
      auction = (EventIds.lastBase0AuctionId(id) / EventIds.HOT_BUCKET) * EventIds.HOT_BUCKET;
    } else {
      auction = EventIds.nextBase0AuctionId(id, random, config.numInFlightAuctions);
    }
    auction += EventIds.FIRST_AUCTION_ID;
    long bidder;
    if (random.nextInt(config.hotBiddersRatio) > 0) {
      bidder = (EventIds.lastBase0PersonId(id) / EventIds.HOT_BUCKET) * EventIds.HOT_BUCKET + 1;
    } else {
      bidder = EventIds.nextBase0PersonId(id, random, config.numActivePeople);
    }
    bidder += EventIds.FIRST_PERSON_ID;
    long price = EventIds.nextPrice(random);
    String extra = Strings.nextExtra(random, 32, config.avgBidByteSize);
    return new Bid(auction, bidder, price, new Instant(timestamp), extra);
  }
}
