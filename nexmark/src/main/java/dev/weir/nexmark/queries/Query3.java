package dev.weir.nexmark.queries;

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
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;

/**
 * Query 3, LOCAL_ITEM_SUGGESTION: who sells in category 10 in Oregon, Idaho or California. A
 * stateful join by seller id: the person is kept in state, auctions that arrive before their
 * seller wait in a bag, and a timer forgets both {@code maxAuctionsWaitingTime} seconds after
 * the last event of the seller.
 */
public final class Query3 implements NexmarkQuery<NameCityStateId> {
  private static final Set<String> STATES = Set.of("OR", "ID", "CA");
  private static final long CATEGORY = 10;

  @Override
  public int number() {
    return 3;
  }

  @Override
  public String name() {
    return "LOCAL_ITEM_SUGGESTION";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<NameCityStateId>> transform(NexmarkConfig config) {
    Duration wait = Duration.standardSeconds(config.maxAuctionsWaitingTime);
    return new PTransform<>("LocalItemSuggestion") {
      @Override
      public PCollection<NameCityStateId> expand(PCollection<Event> events) {
        return events
            .apply("BySeller", ParDo.of(new KeyBySeller()))
            .setCoder(KvCoder.of(VarLongCoder.of(), Event.EventCoder.INSTANCE))
            .apply("Join", ParDo.of(new JoinFn(wait)))
            .setCoder(NameCityStateId.NameCityStateIdCoder.INSTANCE);
      }
    };
  }

  @Override
  public Collection<NameCityStateId> model(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    Map<Long, Person> people = new HashMap<>();
    List<Auction> auctions = new ArrayList<>();
    for (TimestampedValue<Event> e : events) {
      Person p = e.getValue().newPerson;
      Auction a = e.getValue().newAuction;
      if (p != null && STATES.contains(p.state)) {
        people.put(p.id, p);
      } else if (a != null && a.category == CATEGORY) {
        auctions.add(a);
      }
    }
    List<NameCityStateId> out = new ArrayList<>();
    for (Auction a : auctions) {
      Person p = people.get(a.seller);
      if (p != null) {
        out.add(new NameCityStateId(p.name, p.city, p.state, a.id));
      }
    }
    return out;
  }

  /** People of the three states by id, category-10 auctions by seller. */
  private static final class KeyBySeller extends DoFn<Event, KV<Long, Event>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Event>> out) {
      if (e.newPerson != null && STATES.contains(e.newPerson.state)) {
        out.output(KV.of(e.newPerson.id, e));
      } else if (e.newAuction != null && e.newAuction.category == CATEGORY) {
        out.output(KV.of(e.newAuction.seller, e));
      }
    }
  }

  private static final class JoinFn extends DoFn<KV<Long, Event>, NameCityStateId> {
    private final Duration wait;

    @StateId("person")
    private final StateSpec<ValueState<Person>> personSpec = StateSpecs.value(Person.PersonCoder.INSTANCE);

    @StateId("pendingAuctions")
    private final StateSpec<BagState<Auction>> pendingSpec = StateSpecs.bag(Auction.AuctionCoder.INSTANCE);

    @TimerId("expiry")
    private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    JoinFn(Duration wait) {
      this.wait = wait;
    }

    @ProcessElement
    public void process(
        @Element KV<Long, Event> element,
        @StateId("person") ValueState<Person> person,
        @StateId("pendingAuctions") BagState<Auction> pending,
        @TimerId("expiry") Timer expiry,
        OutputReceiver<NameCityStateId> out) {
      Event event = element.getValue();
      if (event.newPerson != null) {
        Person p = event.newPerson;
        if (person.read() == null) {
          person.write(p);
          for (Auction a : pending.read()) {
            out.output(new NameCityStateId(p.name, p.city, p.state, a.id));
          }
          pending.clear();
        }
        expiry.set(p.dateTime.plus(wait));
      } else {
        Auction a = event.newAuction;
        Person p = person.read();
        if (p != null) {
          out.output(new NameCityStateId(p.name, p.city, p.state, a.id));
        } else {
          pending.add(a);
        }
        expiry.set(a.dateTime.plus(wait));
      }
    }

    @OnTimer("expiry")
    public void onExpiry(@StateId("person") ValueState<Person> person, @StateId("pendingAuctions") BagState<Auction> pending) {
      person.clear();
      pending.clear();
    }
  }
}
