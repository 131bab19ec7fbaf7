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
   * Whether only the final pane of each window is checked against the model: for a query whose
   * trigger fires early panes, how many depends on how the runner bundles its input (Beam does
   * not test query 6's early panes either); the final, complete pane does not.
   */
  default boolean checksFinalPanesOnly() {
    return false;
  }

  /** The expected results, in any order, for {@code events} in stream order. */
  Collection<T> model(List<TimestampedValue<Event>> events, NexmarkConfig config);
}
