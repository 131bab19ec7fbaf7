package dev.weir.nexmark.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Objects;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/** A seller's name, city and state with one of their auctions: query 3's output. */
public final class NameCityStateId implements Serializable {
  public final String name;
  public final String city;
  public final String state;
  public final long id;

  public NameCityStateId(String name, String city, String state, long id) {
    this.name = name;
    this.city = city;
    this.state = state;
    this.id = id;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof NameCityStateId)) {
      return false;
    }
    NameCityStateId n = (NameCityStateId) o;
    return id == n.id && name.equals(n.name) && city.equals(n.city) && state.equals(n.state);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, city, state, id);
  }

  @Override
  public String toString() {
    return "NameCityStateId{" + name + ", " + city + ", " + state + ", " + id + "}";
  }

  /** Beam coder. */
  public static final class NameCityStateIdCoder extends CustomCoder<NameCityStateId> {
    public static final NameCityStateIdCoder INSTANCE = new NameCityStateIdCoder();

    @Override
    public void encode(NameCityStateId v, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(v.name, out);
      StringUtf8Coder.of().encode(v.city, out);
      StringUtf8Coder.of().encode(v.state, out);
      VarLongCoder.of().encode(v.id, out);
    }

    @Override
    public NameCityStateId decode(InputStream in) throws IOException {
      return new NameCityStateId(StringUtf8Coder.of().decode(in), StringUtf8Coder.of().decode(in),
          StringUtf8Coder.of().decode(in), VarLongCoder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
