package dev.weir.nexmark.generator;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.Person;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.BoundedSource;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.values.TimestampedValue;
import org.junit.jupiter.api.Test;

/**
 * The generator against known events of the specification's stream (worked out independently
 * from the algorithm), its determinism and its split invariance.
 */
class GeneratorTest {
  private static final long BASE = EventTimeline.BASE_TIME_MS;

  private static List<TimestampedValue<Event>> all(Generator g) {
    List<TimestampedValue<Event>> events = new ArrayList<>();
    g.forEachRemaining(events::add);
    return events;
  }

  @Test
  void oneGeneratorMatchesTheKnownEvents() {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 5000;
    config.numEventGenerators = 1;
    List<TimestampedValue<Event>> events = all(Generator.whole(config));

    Person p = events.get(0).getValue().newPerson;
    assertThat(p.id, equalTo(1000L));
    assertThat(p.name, equalTo("Peter Jones"));
    assertThat(p.emailAddress, equalTo("nhd@xcat.com"));
    assertThat(p.creditCard, equalTo("7241 7320 9143 4888"));
    assertThat(p.city, equalTo("Portland"));
    assertThat(p.state, equalTo("WY"));
    assertThat(p.dateTime.getMillis(), equalTo(BASE));
    assertThat(p.extra.length(), equalTo(156));
    assertThat(p.extra, startsWith("WN_HS_bnpkki"));

    Auction a = events.get(1).getValue().newAuction;
    assertThat(a.id, equalTo(1000L));
    assertThat(a.itemName, equalTo("wkx mgee"));
    assertThat(a.description, equalTo("eszpqxtdxrvwmmywkmogoahf"));
    assertThat(a.initialBid, equalTo(28873L));
    assertThat(a.reserve, equalTo(29448L));
    assertThat(a.expires.getMillis(), equalTo(BASE + 11));
    assertThat(a.seller, equalTo(1000L));
    assertThat(a.category, equalTo(13L));
    assertThat(a.extra.length(), equalTo(346));

    Auction a3 = events.get(3).getValue().newAuction;
    assertThat(a3.id, equalTo(1002L));
    assertThat(a3.itemName, equalTo("gxycmhtobprpd"));
    assertThat(a3.initialBid, equalTo(267L));
    assertThat(a3.reserve, equalTo(422398L));
    assertThat(a3.category, equalTo(10L));

    Bid b = events.get(4).getValue().bid;
    assertThat(b.auction, equalTo(1000L));
    assertThat(b.bidder, equalTo(1001L));
    assertThat(b.price, equalTo(32530001L));
    assertThat(b.extra.length(), equalTo(77));
    assertThat(b.extra, startsWith("fdiysaV^]NLV"));

    Person p50 = events.get(50).getValue().newPerson;
    assertThat(p50.name, equalTo("Sarah Smith"));
    assertThat(p50.emailAddress, equalTo("f  y@yumv.com"));
    assertThat(p50.dateTime.getMillis(), equalTo(BASE + 5));

    Bid last = events.get(4999).getValue().bid;
    assertThat(last.auction, equalTo(1233L));
    assertThat(last.bidder, equalTo(1001L));
    assertThat(last.price, equalTo(3963L));
    assertThat(last.dateTime.getMillis(), equalTo(BASE + 499));
  }

  @Test
  void hundredGeneratorsShareOneTimeline() {
    List<TimestampedValue<Event>> events = NexmarkEvents.inMemory(new NexmarkConfig());
    assertThat(events.size(), equalTo(100_000));
    Person p = events.get(1000).getValue().newPerson;
    assertThat(p.id, equalTo(1020L));
    assertThat(p.name, equalTo("Walter Abrams"));
    assertThat(p.emailAddress, equalTo("alkt@csxs.com"));
    assertThat(p.dateTime.getMillis(), equalTo(BASE));
    Auction a = events.get(1001).getValue().newAuction;
    assertThat(a.id, equalTo(1060L));
    assertThat(a.expires.getMillis(), equalTo(BASE + 17902));
    Bid b = events.get(99_999).getValue().bid;
    assertThat(b.auction, equalTo(6900L));
    assertThat(b.bidder, equalTo(2901L));
    assertThat(b.price, equalTo(76433L));
    assertThat(b.dateTime.getMillis(), equalTo(BASE + 9990));
  }

  @Test
  void deterministicAndTheSameHoweverTheSourceIsSplit() throws Exception {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 3_000;
    config.numEventGenerators = 7;
    BoundedEventSource source = BoundedEventSource.of(config);
    List<TimestampedValue<Event>> unsplit = read(source);
    List<TimestampedValue<Event>> split = new ArrayList<>();
    for (BoundedSource<Event> part : source.split(1, PipelineOptionsFactory.create())) {
      split.addAll(read(part));
    }
    assertThat(unsplit.size(), equalTo(3_000));
    assertThat(split, equalTo(unsplit));
    assertThat(read(BoundedEventSource.of(config)), equalTo(unsplit));
  }

  private static List<TimestampedValue<Event>> read(BoundedSource<Event> source) throws Exception {
    List<TimestampedValue<Event>> events = new ArrayList<>();
    try (BoundedSource.BoundedReader<Event> reader = source.createReader(PipelineOptionsFactory.create())) {
      for (boolean more = reader.start(); more; more = reader.advance()) {
        events.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
      }
    }
    return events;
  }
}
