package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/** Query 0, PASSTHROUGH: every event, unchanged. */
final class Query0Model implements ReferenceModel<Event> {
  @Override
  public Collection<Event> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    List<Event> out = new ArrayList<>(events.size());
    for (TimestampedValue<Event> e : events) {
      out.add(e.getValue());
    }
    return out;
  }
}
