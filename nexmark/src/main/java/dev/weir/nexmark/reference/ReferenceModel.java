package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * What one Nexmark query must output, computed in plain Java from the events and the
 * specification. Models share nothing with the pipelines in {@code queries/} but the data
 * classes of {@code model/} and the configuration, so a mistake in a pipeline's logic cannot
 * hide in its model too ({@code ReferenceIndependenceTest} checks this on the bytecode).
 */
public interface ReferenceModel<T> {
  /** The expected results, in any order, for {@code events} in stream order. */
  Collection<T> expected(List<TimestampedValue<Event>> events, NexmarkConfig config);
}
