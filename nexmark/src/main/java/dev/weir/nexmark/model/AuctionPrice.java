package dev.weir.nexmark.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/** An auction id and a price: query 2's output. */
public final class AuctionPrice implements Serializable {
  public final long auction;
  public final long price;

  public AuctionPrice(long auction, long price) {
    this.auction = auction;
    this.price = price;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuctionPrice && ((AuctionPrice) o).auction == auction && ((AuctionPrice) o).price == price;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(auction) * 31 + Long.hashCode(price);
  }

  @Override
  public String toString() {
    return "AuctionPrice{auction=" + auction + ", price=" + price + "}";
  }

  /** Beam coder. */
  public static final class AuctionPriceCoder extends CustomCoder<AuctionPrice> {
    public static final AuctionPriceCoder INSTANCE = new AuctionPriceCoder();

    @Override
    public void encode(AuctionPrice value, OutputStream out) throws IOException {
      VarLongCoder.of().encode(value.auction, out);
      VarLongCoder.of().encode(value.price, out);
    }

    @Override
    public AuctionPrice decode(InputStream in) throws IOException {
      return new AuctionPrice(VarLongCoder.of().decode(in), VarLongCoder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
