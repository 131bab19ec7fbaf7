package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.NameCityStateId;
import dev.weir.nexmark.model.Person;
import java.util.Set;
import org.apache.beam.sdk.coders.InstantCoder;
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
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Query 3, LOCAL_ITEM_SUGGESTION: who sells in category 10 in Oregon, Idaho or California. A
 * stateful join by seller id: the person is kept in state, auctions that arrive before their
 * seller wait in a bag, and an event-time timer forgets both {@code maxAuctionsWaitingTime}
 * seconds after the seller's latest event (once the watermark has passed that time).
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

  /**
   * The join. Beam's Query3 sets the expiry timer to "this event's time + wait" on every event,
   * so the timer ends up at the time of whichever event of the seller was processed last; when
   * several events of one seller arrive in one bundle that depends on the order the runner
   * hands them over. The latest event time seen is kept in state instead, and the timer is set
   * from it, so the seller is forgotten {@code wait} after its latest event, whatever the order.
   */
  private static final class JoinFn extends DoFn<KV<Long, Event>, NameCityStateId> {
    private final Duration wait;

    @StateId("person")
    private final StateSpec<ValueState<Person>> personSpec = StateSpecs.value(Person.PersonCoder.INSTANCE);

    @StateId("pendingAuctions")
    private final StateSpec<BagState<Auction>> pendingSpec = StateSpecs.bag(Auction.AuctionCoder.INSTANCE);

    @StateId("latestEvent")
    private final StateSpec<ValueState<Instant>> latestSpec = StateSpecs.value(InstantCoder.of());

    @TimerId("expiry")
    private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    JoinFn(Duration wait) {
      this.wait = wait;
    }

    @ProcessElement
    public void process(
        @Element KV<Long, Event> element,
        @Timestamp Instant timestamp,
        @StateId("person") ValueState<Person> person,
        @StateId("pendingAuctions") BagState<Auction> pending,
        @StateId("latestEvent") ValueState<Instant> latestEvent,
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
      } else {
        Auction a = event.newAuction;
        Person p = person.read();
        if (p != null) {
          out.output(new NameCityStateId(p.name, p.city, p.state, a.id));
        } else {
          pending.add(a);
        }
      }
      Instant latest = latestEvent.read();
      if (latest == null || timestamp.isAfter(latest)) {
        latest = timestamp;
        latestEvent.write(latest);
      }
      expiry.set(latest.plus(wait));
    }

    @OnTimer("expiry")
    public void onExpiry(
        @StateId("person") ValueState<Person> person,
        @StateId("pendingAuctions") BagState<Auction> pending,
        @StateId("latestEvent") ValueState<Instant> latestEvent) {
      person.clear();
      pending.clear();
      latestEvent.clear();
    }
  }
}
