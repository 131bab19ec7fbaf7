package dev.weir.nexmark;

import dev.weir.nexmark.generator.BoundedEventSource;
import dev.weir.nexmark.generator.UnboundedEventSource;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.values.TimestampedValue;

/** Where queries get their events from. */
public final class NexmarkEvents {
  private NexmarkEvents() {}

  /** The stream as a bounded read, split over the configured generators. */
  public static Read.Bounded<Event> bounded(NexmarkConfig config) {
    return Read.from(BoundedEventSource.of(config));
  }

  /** The stream as an unbounded read, for streaming runs; it ends with its last event. */
  public static Read.Unbounded<Event> unbounded(NexmarkConfig config) {
    return Read.from(UnboundedEventSource.of(config));
  }

  /**
   * The same events in plain Java, in the order the source's splits produce them: the input of
   * the reference models.
   */
  public static List<TimestampedValue<Event>> inMemory(NexmarkConfig config) {
    List<TimestampedValue<Event>> events = new ArrayList<>();
    for (BoundedEventSource split : BoundedEventSource.of(config).split(0, null)) {
      try (var reader = split.createReader(null)) {
        for (boolean more = reader.start(); more; more = reader.advance()) {
          events.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
        }
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return events;
  }
}
