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

/** A person who may sell or bid. Immutable. */
public final class Person implements Serializable {
  public final long id;
  public final String name;
  public final String emailAddress;
  public final String creditCard;
  public final String city;
  public final String state;
  public final Instant dateTime;
  public final String extra;

  public Person(long id, String name, String emailAddress, String creditCard, String city, String state,
      Instant dateTime, String extra) {
    this.id = id;
    this.name = name;
    this.emailAddress = emailAddress;
    this.creditCard = creditCard;
    this.city = city;
    this.state = state;
    this.dateTime = dateTime;
    this.extra = extra;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Person)) {
      return false;
    }
    Person p = (Person) o;
    return id == p.id && name.equals(p.name) && emailAddress.equals(p.emailAddress)
        && creditCard.equals(p.creditCard) && city.equals(p.city) && state.equals(p.state)
        && dateTime.equals(p.dateTime) && extra.equals(p.extra);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, name, emailAddress, creditCard, city, state, dateTime, extra);
  }

  @Override
  public String toString() {
    return "Person{id=" + id + ", name=" + name + ", city=" + city + ", state=" + state + ", dateTime=" + dateTime + "}";
  }

  /** Beam coder: fields in declaration order. */
  public static final class PersonCoder extends CustomCoder<Person> {
    public static final PersonCoder INSTANCE = new PersonCoder();

    @Override
    public void encode(Person p, OutputStream out) throws IOException {
      VarLongCoder.of().encode(p.id, out);
      StringUtf8Coder.of().encode(p.name, out);
      StringUtf8Coder.of().encode(p.emailAddress, out);
      StringUtf8Coder.of().encode(p.creditCard, out);
      StringUtf8Coder.of().encode(p.city, out);
      StringUtf8Coder.of().encode(p.state, out);
      InstantCoder.of().encode(p.dateTime, out);
      StringUtf8Coder.of().encode(p.extra, out);
    }

    @Override
    public Person decode(InputStream in) throws IOException {
      return new Person(VarLongCoder.of().decode(in), StringUtf8Coder.of().decode(in), StringUtf8Coder.of().decode(in),
          StringUtf8Coder.of().decode(in), StringUtf8Coder.of().decode(in), StringUtf8Coder.of().decode(in),
          InstantCoder.of().decode(in), StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
