package dev.weir.translation.streaming.state;

import java.io.IOException;
import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Where streaming keyed state lives between epochs ({@code --stateBackend}): {@link
 * MemoryStateBackend} or {@link RocksDbStateBackend}. Shipped to the executors with each keyed
 * step's tasks; the partitions it opens stay in the executor JVM from one epoch to the next.
 */
public interface StateBackend extends Serializable {
  /** The option's value that chooses this backend. */
  String name();

  /**
   * Whether a keyed step should take its epoch's input sorted by key and work on one key at a
   * time, so that a key leaves the heap once done: for a backend whose keys live off the heap.
   * The heap backend holds every key anyway, and spares the sort.
   */
  boolean groupsKeys();

  /**
   * Opens partition {@code partition} of {@code step} for {@code epoch} at {@code previous}, the
   * last epoch the step ran in (a step with nothing due skips epochs), from this JVM or, with a
   * checkpoint dir ({@code files}), read back from there when this JVM does not hold that version.
   */
  KeyedPartition open(
      String runId,
      String step,
      int partition,
      long epoch,
      long previous,
      KeyedStateStore.Codec codec,
      @Nullable StateFiles files,
      boolean timerHolds);

  /** Commits the partition at {@code epoch}, writing it to the checkpoint dir if there is one. */
  void commit(KeyedPartition partition, long epoch) throws IOException;

  /** Forgets the state of every step of {@code runId} held in this JVM. */
  void dropRun(String runId);
}
