package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.IdNameReserve;
import dev.weir.nexmark.model.Person;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;

/**
 * Query 8, MONITOR_NEW_USERS: people who opened an auction in the same fixed window in which they
 * joined, with the auction's reserve. A CoGroupByKey of people by id and auctions by seller.
 */
public final class Query8 implements NexmarkQuery<IdNameReserve> {
  private static final TupleTag<Person> PEOPLE = new TupleTag<>() {};
  private static final TupleTag<Auction> AUCTIONS = new TupleTag<>() {};

  @Override
  public int number() {
    return 8;
  }

  @Override
  public String name() {
    return "MONITOR_NEW_USERS";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<IdNameReserve>> transform(NexmarkConfig config) {
    Duration size = Duration.standardSeconds(config.windowSizeSec);
    return new PTransform<>("MonitorNewUsers") {
      @Override
      public PCollection<IdNameReserve> expand(PCollection<Event> events) {
        PCollection<KV<Long, Person>> people = events
            .apply("PeopleById", ParDo.of(new PeopleById()))
            .setCoder(KvCoder.of(VarLongCoder.of(), Person.PersonCoder.INSTANCE))
            .apply("PeopleWindows", Window.into(FixedWindows.of(size)));
        PCollection<KV<Long, Auction>> auctions = events
            .apply("AuctionsBySeller", ParDo.of(new AuctionsBySeller()))
            .setCoder(KvCoder.of(VarLongCoder.of(), Auction.AuctionCoder.INSTANCE))
            .apply("AuctionWindows", Window.into(FixedWindows.of(size)));
        return KeyedPCollectionTuple.of(PEOPLE, people)
            .and(AUCTIONS, auctions)
            .apply(CoGroupByKey.create())
            .apply("Join", ParDo.of(new Join()))
            .setCoder(SerializableCoder.of(IdNameReserve.class));
      }
    };
  }

  private static final class PeopleById extends DoFn<Event, KV<Long, Person>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Person>> out) {
      if (e.newPerson != null) {
        out.output(KV.of(e.newPerson.id, e.newPerson));
      }
    }
  }

  private static final class AuctionsBySeller extends DoFn<Event, KV<Long, Auction>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Long, Auction>> out) {
      if (e.newAuction != null) {
        out.output(KV.of(e.newAuction.seller, e.newAuction));
      }
    }
  }

  private static final class Join extends DoFn<KV<Long, CoGbkResult>, IdNameReserve> {
    @ProcessElement
    public void process(@Element KV<Long, CoGbkResult> group, OutputReceiver<IdNameReserve> out) {
      Person person = group.getValue().getOnly(PEOPLE, null);
      if (person == null) {
        return;
      }
      for (Auction a : group.getValue().getAll(AUCTIONS)) {
        out.output(new IdNameReserve(person.id, person.name, a.reserve));
      }
    }
  }
}
