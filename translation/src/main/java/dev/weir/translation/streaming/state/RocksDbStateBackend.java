package dev.weir.translation.streaming.state;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.annotations.Internal;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
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
@Internal
public final class RocksDbStateBackend implements StateBackend {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbStateBackend.class);
  private static final Map<String, RocksDbPartition> PARTITIONS = new ConcurrentHashMap<>();

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
    RocksDbPartition p = PARTITIONS.get(name);
    try {
      if (p == null) {
        p = new RocksDbPartition(
            "step '" + step + "', partition " + partition, partition, home(runId, step, partition), codec, files,
            RocksDbResources.get(memoryBytes));
        if (files == null || previous <= 0) {
          p.create();
        } else {
          p.restore(previous);
        }
        PARTITIONS.put(name, p);
      } else if (files != null && (p.open || p.version != previous)) {
        p.restore(previous);
      }
    } catch (IOException | RuntimeException e) {
      if (files != null) {
        throw KeyedStateStore.unreadable(step, partition, previous, files, e);
      }
      throw new IllegalStateException("Step '" + step + "', partition " + partition + ": could not open its RocksDB state", e);
    }
    synchronized (p) {
      KeyedStateStore.checkOpenable(step, partition, epoch, previous, p.open, p.version);
      p.open = true;
    }
    return p;
  }

  @Override
  public void commit(KeyedPartition partition, long epoch) throws IOException {
    RocksDbPartition p = (RocksDbPartition) partition;
    synchronized (p) {
      p.commit(epoch);
      p.open = false;
    }
  }

  @Override
  public void dropRun(String runId) {
    dropRunInThisJvm(runId);
  }

  /** Closes the instances of {@code runId} in this JVM and deletes their local files. */
  static void dropRunInThisJvm(String runId) {
    for (Map.Entry<String, RocksDbPartition> e : PARTITIONS.entrySet()) {
      if (KeyedStateStore.ofRun(e.getKey(), runId) && PARTITIONS.remove(e.getKey(), e.getValue())) {
        synchronized (e.getValue()) {
          try {
            e.getValue().drop();
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
