package dev.weir.nexmark.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.checkerframework.checker.nullness.qual.Nullable;

/** One event of the stream: exactly one of a new person, a new auction or a bid. */
public final class Event implements Serializable {
  public final @Nullable Person newPerson;
  public final @Nullable Auction newAuction;
  public final @Nullable Bid bid;

  private Event(@Nullable Person newPerson, @Nullable Auction newAuction, @Nullable Bid bid) {
    this.newPerson = newPerson;
    this.newAuction = newAuction;
    this.bid = bid;
  }

  public static Event of(Person person) {
    return new Event(person, null, null);
  }

  public static Event of(Auction auction) {
    return new Event(null, auction, null);
  }

  public static Event of(Bid bid) {
    return new Event(null, null, bid);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Event)) {
      return false;
    }
    Event e = (Event) o;
    return Objects.equals(newPerson, e.newPerson) && Objects.equals(newAuction, e.newAuction)
        && Objects.equals(bid, e.bid);
  }

  @Override
  public int hashCode() {
    return Objects.hash(newPerson, newAuction, bid);
  }

  @Override
  public String toString() {
    return newPerson != null ? newPerson.toString() : newAuction != null ? newAuction.toString() : String.valueOf(bid);
  }

  /** Beam coder: a tag (0 person, 1 auction, 2 bid), then the event's own coder. */
  public static final class EventCoder extends CustomCoder<Event> {
    public static final EventCoder INSTANCE = new EventCoder();

    @Override
    public void encode(Event e, OutputStream out) throws IOException {
      if (e.newPerson != null) {
        VarIntCoder.of().encode(0, out);
        Person.PersonCoder.INSTANCE.encode(e.newPerson, out);
      } else if (e.newAuction != null) {
        VarIntCoder.of().encode(1, out);
        Auction.AuctionCoder.INSTANCE.encode(e.newAuction, out);
      } else {
        VarIntCoder.of().encode(2, out);
        Bid.BidCoder.INSTANCE.encode(e.bid, out);
      }
    }

    @Override
    public Event decode(InputStream in) throws IOException {
      int tag = VarIntCoder.of().decode(in);
      switch (tag) {
        case 0:
          return of(Person.PersonCoder.INSTANCE.decode(in));
        case 1:
          return of(Auction.AuctionCoder.INSTANCE.decode(in));
        case 2:
          return of(Bid.BidCoder.INSTANCE.decode(in));
        default:
          throw new CoderException("Unknown event tag " + tag);
      }
    }

    @Override
    public void verifyDeterministic() {}
  }
}
