package dev.weir.nexmark.generator;

import java.util.Random;

/**
 * The id arithmetic of the stream. Event ids come in cycles of 50: id % 50 == 0 is a person,
 * 1 to 3 an auction, 4 to 49 a bid. Person and auction ids count from 1000; "base 0" ids count
 * from 0. New sellers and bidders are drawn among the active people and new bids among the
 * auctions in flight, with a small look-ahead to ids not generated yet.
 */
final class EventIds {
  static final long FIRST_PERSON_ID = 1000;
  static final long FIRST_AUCTION_ID = 1000;
  static final long FIRST_CATEGORY_ID = 10;
  static final int PROPORTION_DENOMINATOR = 50;
  static final int PERSON_PROPORTION = 1;
  static final int AUCTION_PROPORTION = 3;
  /** Ids ahead of the last one generated that may be referred to. */
  static final int ID_LEAD = 10;
  /** Hot entities are the multiples of this in base-0 ids. */
  static final int HOT_BUCKET = 100;

  private EventIds() {}

  static long lastBase0PersonId(long eventId) {
    long epoch = eventId / PROPORTION_DENOMINATOR;
    long offset = eventId % PROPORTION_DENOMINATOR;
    if (offset >= PERSON_PROPORTION) {
      offset = PERSON_PROPORTION - 1;
    }
    return epoch * PERSON_PROPORTION + offset;
  }

  static long lastBase0AuctionId(long eventId) {
    long epoch = eventId / PROPORTION_DENOMINATOR;
    long offset = eventId % PROPORTION_DENOMINATOR;
    if (offset < PERSON_PROPORTION) {
      // A person's slot: the last auction was in the previous cycle.
      epoch--;
      offset = AUCTION_PROPORTION - 1;
    } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
      // A bid's slot: all auctions of this cycle exist.
      offset = AUCTION_PROPORTION - 1;
    } else {
      offset -= PERSON_PROPORTION;
    }
    return epoch * AUCTION_PROPORTION + offset;
  }

  /** A uniform long in [0, n), drawn the way the stream always draws them. */
  static long nextLong(Random random, long n) {
    if (n < Integer.MAX_VALUE) {
      return random.nextInt((int) n);
    }
    return Math.abs(random.nextLong() % n);
  }

  static long nextBase0PersonId(long eventId, Random random, int numActivePeople) {
    long numPeople = lastBase0PersonId(eventId) + 1;
    long active = Math.min(numPeople, numActivePeople);
    return numPeople - active + nextLong(random, active + ID_LEAD);
  }

  static long nextBase0AuctionId(long eventId, Random random, int numInFlightAuctions) {
    long maxAuction = lastBase0AuctionId(eventId);
    long minAuction = Math.max(maxAuction - numInFlightAuctions, 0);
    return minAuction + nextLong(random, maxAuction - minAuction + 1 + ID_LEAD);
  }

  /** Prices in cents, log-uniform between $1 and $1,000,000. */
  static long nextPrice(Random random) {
    return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
  }
}
