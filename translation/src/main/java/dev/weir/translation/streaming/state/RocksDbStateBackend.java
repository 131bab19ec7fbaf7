package dev.weir.translation.streaming.state;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --stateBackend=rocksdb}: keyed state in an embedded RocksDB instance per (run, step,
 * partition) on the local disk of the executor that runs the partition ({@link RocksDbPartition}),
 * in the folder Spark gives the executor's files; the native memory all instances of a JVM share
 * is {@code --stateBackendMemoryMb} ({@link RocksDbResources}). With a checkpoint dir each commit
 * uploads what changed ({@link RocksDbCheckpoints}).
 */
public final class RocksDbStateBackend implements StateBackend {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateBackend.class);
  private static final Map<String, RocksDbPartition> PARTITIONS = new ConcurrentHashMap<>();
  /** How long an open or a run's end waits for another task attempt to let go of a partition. */
  private static final long RELEASE_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

  private final long memoryBytes;

  /** @param memoryMb native memory for block cache and write buffers, per executor JVM */
  public RocksDbStateBackend(long memoryMb) {
    if (memoryMb < 16) {
      throw new IllegalArgumentException("Invalid --stateBackendMemoryMb=" + memoryMb + ": must be at least 16");
    }
    this.memoryBytes = memoryMb << 20;
  }

  @Override
  public boolean groupsKeys() {
    return true;
  }

  @Override
  public String name() {
    return "rocksdb";
  }

  @Override
  public KeyedPartition open(
      String runId,
      String step,
      int partition,
      long epoch,
      long previous,
      KeyedStateStore.Codec codec,
      @Nullable StateFiles files,
      boolean timerHolds) {
    String name = KeyedStateStore.partitionName(runId, step, partition);
    RocksDbPartition p =
        PARTITIONS.computeIfAbsent(
            name,
            k -> new RocksDbPartition(
                "step '" + step + "', partition " + partition, partition, home(runId, step, partition), codec, files,
                RocksDbResources.get(memoryBytes)));
    TaskContext task = TaskContext.get();
    long attempt = task == null ? RocksDbPartition.NOBODY : task.taskAttemptId();
    synchronized (p) {
      awaitRelease(p, "open it for epoch " + epoch);
      try {
        if (!p.isCreated()) {
          if (files == null || previous <= 0) {
            p.create();
          } else {
            p.restore(previous);
          }
        } else if (files != null && (p.open || p.version != previous || !p.holdsCommitOf(previous))) {
          p.restore(previous);
        }
      } catch (IOException | RuntimeException e) {
        if (files != null) {
          throw KeyedStateStore.unreadable(step, partition, previous, files, e);
        }
        throw new IllegalStateException("Step '" + step + "', partition " + partition + ": could not open its RocksDB state", e);
      }
      KeyedStateStore.checkOpenable(step, partition, epoch, previous, p.open, p.version);
      p.begin(epoch);
      p.holder = attempt;
    }
    if (task != null) {
      // However the attempt ends, the partition is free for the next one (a retry finds it
      // open, and goes back to its last commit).
      task.addTaskCompletionListener((TaskContext c) -> release(p, attempt));
    }
    return p;
  }

  /**
   * Waits until no task attempt in this JVM has the partition open: one Spark still runs after it
   * gave up on it (a speculative copy, an attempt of a stage it resubmitted) must not see the
   * instance closed and restored under it.
   */
  private static void awaitRelease(RocksDbPartition p, String why) {
    long deadline = System.nanoTime() + RELEASE_TIMEOUT_NANOS;
    while (p.holder != RocksDbPartition.NOBODY) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(
            "RocksDB state: another attempt of the task (Spark attempt " + p.holder + ") still has this partition "
                + "open in this executor; cannot " + why);
      }
      try {
        p.wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting to " + why, e);
      }
    }
  }

  private static void release(RocksDbPartition p, long attempt) {
    synchronized (p) {
      if (p.holder == attempt) {
        p.holder = RocksDbPartition.NOBODY;
        p.notifyAll();
      }
    }
  }

  @Override
  public void commit(KeyedPartition partition, long epoch) throws IOException {
    RocksDbPartition p = (RocksDbPartition) partition;
    synchronized (p) {
      p.commit(epoch);
      p.open = false;
      p.holder = RocksDbPartition.NOBODY;
      p.notifyAll();
    }
  }

  @Override
  public void dropRun(String runId) {
    dropRunInThisJvm(runId);
  }

  /**
   * Closes the instances of {@code runId} in this JVM and deletes their local files, once no task
   * has them open (or after a while: a task still using one then fails on its next call).
   */
  static void dropRunInThisJvm(String runId) {
    for (Map.Entry<String, RocksDbPartition> e : PARTITIONS.entrySet()) {
      if (KeyedStateStore.ofRun(e.getKey(), runId) && PARTITIONS.remove(e.getKey(), e.getValue())) {
        RocksDbPartition p = e.getValue();
        synchronized (p) {
          try {
            awaitRelease(p, "close it at the end of the run");
          } catch (IllegalStateException busy) {
            LOG.warn("Closing the RocksDB state {} while a task still has it open", e.getKey(), busy);
          }
          try {
            p.drop();
          } catch (IOException | RuntimeException failure) {
            LOG.warn("Could not delete the local RocksDB state {}", e.getKey(), failure);
          }
        }
      }
    }
  }

  /** Where a partition's instance lives: under the folder Spark gives this executor (or the JVM's temp dir outside Spark). */
  private static Path home(String runId, String step, int partition) {
    Path root = SparkEnv.get() != null ? Paths.get(SparkFiles.getRootDirectory()) : Paths.get(System.getProperty("java.io.tmpdir"));
    return root.resolve("weir-rocksdb").resolve(runId).resolve(StateFiles.stepDir(step)).resolve(Integer.toString(partition));
  }
}
