package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;

/** Query 0, PASSTHROUGH: every event, through a round trip of its coder (the cost of a copy). */
public final class Query0 implements NexmarkQuery<Event> {
  @Override
  public int number() {
    return 0;
  }

  @Override
  public String name() {
    return "PASSTHROUGH";
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Event>> transform(NexmarkConfig config) {
    return new PTransform<>("Passthrough") {
      @Override
      public PCollection<Event> expand(PCollection<Event> events) {
        return events.apply(ParDo.of(new RoundTrip())).setCoder(Event.EventCoder.INSTANCE);
      }
    };
  }

  private static final class RoundTrip extends DoFn<Event, Event> {
    @ProcessElement
    public void process(@Element Event event, OutputReceiver<Event> out) throws Exception {
      byte[] bytes = CoderUtils.encodeToByteArray(Event.EventCoder.INSTANCE, event);
      out.output(CoderUtils.decodeFromByteArray(Event.EventCoder.INSTANCE, bytes));
    }
  }
}
