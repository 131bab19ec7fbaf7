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

/** An auction opened by a seller; it ends at {@link #expires}. Immutable. */
public final class Auction implements Serializable {
  public final long id;
  public final String itemName;
  public final String description;
  public final long initialBid;
  public final long reserve;
  public final Instant dateTime;
  public final Instant expires;
  public final long seller;
  public final long category;
  public final String extra;

  public Auction(long id, String itemName, String description, long initialBid, long reserve, Instant dateTime,
      Instant expires, long seller, long category, String extra) {
    this.id = id;
    this.itemName = itemName;
    this.description = description;
    this.initialBid = initialBid;
    this.reserve = reserve;
    this.dateTime = dateTime;
    this.expires = expires;
    this.seller = seller;
    this.category = category;
    this.extra = extra;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Auction)) {
      return false;
    }
    Auction a = (Auction) o;
    return id == a.id && initialBid == a.initialBid && reserve == a.reserve && seller == a.seller
        && category == a.category && itemName.equals(a.itemName) && description.equals(a.description)
        && dateTime.equals(a.dateTime) && expires.equals(a.expires) && extra.equals(a.extra);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra);
  }

  @Override
  public String toString() {
    return "Auction{id=" + id + ", seller=" + seller + ", category=" + category + ", initialBid=" + initialBid
        + ", reserve=" + reserve + ", dateTime=" + dateTime + ", expires=" + expires + "}";
  }

  /** Beam coder: fields in declaration order. */
  public static final class AuctionCoder extends CustomCoder<Auction> {
    public static final AuctionCoder INSTANCE = new AuctionCoder();

    @Override
    public void encode(Auction a, OutputStream out) throws IOException {
      VarLongCoder.of().encode(a.id, out);
      StringUtf8Coder.of().encode(a.itemName, out);
      StringUtf8Coder.of().encode(a.description, out);
      VarLongCoder.of().encode(a.initialBid, out);
      VarLongCoder.of().encode(a.reserve, out);
      InstantCoder.of().encode(a.dateTime, out);
      InstantCoder.of().encode(a.expires, out);
      VarLongCoder.of().encode(a.seller, out);
      VarLongCoder.of().encode(a.category, out);
      StringUtf8Coder.of().encode(a.extra, out);
    }

    @Override
    public Auction decode(InputStream in) throws IOException {
      return new Auction(VarLongCoder.of().decode(in), StringUtf8Coder.of().decode(in), StringUtf8Coder.of().decode(in),
          VarLongCoder.of().decode(in), VarLongCoder.of().decode(in), InstantCoder.of().decode(in),
          InstantCoder.of().decode(in), VarLongCoder.of().decode(in), VarLongCoder.of().decode(in),
          StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
