package dev.weir.translation.streaming.state;

import org.apache.beam.runners.core.StateInternals;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One key's state cells as a state backend keeps them: Beam's {@link StateInternals}, plus what
 * the partition needs to index and drop the key.
 */
public interface KeyStateCells extends StateInternals {
  /** The earliest watermark hold among the key's cells, bound or not, or null if none holds. */
  @Nullable
  Instant earliestHold();

  /** Whether the key has no state left in any cell. */
  boolean isEmpty();
}
