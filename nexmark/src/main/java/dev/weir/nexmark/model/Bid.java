package dev.weir.nexmark.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.joda.time.Instant;

/** A bid on an auction, in cents. Immutable. */
public final class Bid implements Serializable {
  public final long auction;
  public final long bidder;
  public final long price;
  public final Instant dateTime;
  public final String extra;

  public Bid(long auction, long bidder, long price, Instant dateTime, String extra) {
    this.auction = auction;
    this.bidder = bidder;
    this.price = price;
    this.dateTime = dateTime;
    this.extra = extra;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Bid)) {
      return false;
    }
    Bid b = (Bid) o;
    return auction == b.auction && bidder == b.bidder && price == b.price && dateTime.equals(b.dateTime)
        && extra.equals(b.extra);
  }

  @Override
  public int hashCode() {
    return Objects.hash(auction, bidder, price, dateTime, extra);
  }

  @Override
  public String toString() {
    return "Bid{auction=" + auction + ", bidder=" + bidder + ", price=" + price + ", dateTime=" + dateTime + "}";
  }

  /** Beam coder: fields in declaration order. */
  public static final class BidCoder extends CustomCoder<Bid> {
    public static final BidCoder INSTANCE = new BidCoder();

    @Override
    public void encode(Bid b, OutputStream out) throws IOException {
      VarLongCoder.of().encode(b.auction, out);
      VarLongCoder.of().encode(b.bidder, out);
      VarLongCoder.of().encode(b.price, out);
      InstantCoder.of().encode(b.dateTime, out);
      StringUtf8Coder.of().encode(b.extra, out);
    }

    @Override
    public Bid decode(InputStream in) throws IOException {
      return new Bid(VarLongCoder.of().decode(in), VarLongCoder.of().decode(in), VarLongCoder.of().decode(in),
          InstantCoder.of().decode(in), StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
