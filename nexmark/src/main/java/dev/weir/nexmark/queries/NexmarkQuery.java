package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/**
 * One Nexmark query: the Beam transform from events to results. Its reference model, written
 * apart from it, is {@code dev.weir.nexmark.reference.ReferenceModels.forQuery(number())}.
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
}
