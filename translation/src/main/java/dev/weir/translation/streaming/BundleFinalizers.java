package dev.weir.translation.streaming;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.transforms.DoFn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bundle finalizers of streaming steps, kept in the executor that registered them until their
 * epoch is committed, as Beam specifies (they run once the bundle's output is durable): by the
 * same partition's task of a later epoch, or when the run ends ({@link RunCleanup}). A finalizer
 * whose executor is lost is lost with it, which Beam allows (finalization is best effort).
 */
final class BundleFinalizers {
  private static final Logger LOG = LoggerFactory.getLogger(BundleFinalizers.class);
  /** By run, step and partition: the callbacks of each epoch, oldest first. */
  private static final Map<String, List<Pending>> PENDING = new ConcurrentHashMap<>();

  private BundleFinalizers() {}

  private record Pending(long epoch, List<DoFn.BundleFinalizer.Callback> callbacks) {}

  private static String key(String runId, String step, int partition) {
    return runId + '\u0000' + step + '\u0000' + partition;
  }

  /** Keeps {@code callbacks} of {@code epoch} until that epoch is committed. */
  static void afterCommit(String runId, String step, int partition, long epoch, List<DoFn.BundleFinalizer.Callback> callbacks) {
    if (callbacks.isEmpty()) {
      return;
    }
    List<Pending> pending = PENDING.computeIfAbsent(key(runId, step, partition), k -> new ArrayList<>());
    synchronized (pending) {
      // A task attempt run again for the same epoch replaces what the earlier attempt left.
      pending.removeIf(p -> p.epoch() == epoch);
      pending.add(new Pending(epoch, new ArrayList<>(callbacks)));
    }
  }

  /** Runs the callbacks of epochs up to {@code committed} of one partition. */
  static void runCommitted(String runId, String step, int partition, long committed) {
    List<Pending> pending = PENDING.get(key(runId, step, partition));
    if (pending == null) {
      return;
    }
    List<Pending> due = new ArrayList<>();
    synchronized (pending) {
      pending.removeIf(p -> p.epoch() <= committed && due.add(p));
    }
    for (Pending p : due) {
      for (DoFn.BundleFinalizer.Callback callback : p.callbacks()) {
        try {
          callback.onBundleSuccess();
        } catch (Exception e) {
          // Best effort, as Beam specifies: the epoch's output is committed whatever a finalizer
          // does, so its failure is reported and the other finalizers still run.
          LOG.warn("Step '{}': a bundle finalizer of epoch {} failed", step, p.epoch(), e);
        }
      }
    }
  }

  /** Runs the committed callbacks of every partition of {@code runId} here and forgets the run. */
  static void closeRun(String runId, long committed) {
    for (String key : new ArrayList<>(PENDING.keySet())) {
      if (key.startsWith(runId + '\u0000')) {
        String[] parts = key.split("\u0000", 3);
        runCommitted(parts[0], parts[1], Integer.parseInt(parts[2]), committed);
        PENDING.remove(key);
      }
    }
  }
}
