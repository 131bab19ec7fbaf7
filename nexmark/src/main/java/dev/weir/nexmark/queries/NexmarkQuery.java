package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * One Nexmark query: the Beam transform from events to results, and its reference model, an
 * independent plain-Java computation of the same results over the same events.
 */
public interface NexmarkQuery<T> {
  /** Beam's number of the query. */
  int number();

  /** Beam's name of the query, e.g. PASSTHROUGH. */
  String name();

  PTransform<PCollection<Event>, PCollection<T>> transform(NexmarkConfig config);

  /**
   * What of the query's output is checked against the model; by default all of it. A query
   * whose trigger fires early panes gets a different number of them depending on how the runner
   * bundles its input and on the clock (Beam does not test those panes either), so such a query
   * checks what does not depend on that.
   */
  default PCollection<T> checked(PCollection<T> output) {
    return output;
  }

  /** The expected results, in any order, for {@code events} in stream order. */
  Collection<T> model(List<TimestampedValue<Event>> events, NexmarkConfig config);
}
