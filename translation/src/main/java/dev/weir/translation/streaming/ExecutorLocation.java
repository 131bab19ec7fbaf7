package dev.weir.translation.streaming;

import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Where a task runs, in the form Spark's scheduler takes as a preferred location ({@code
 * executor_<host>_<executorId>}, an executor-cache location): a task preferring it is scheduled
 * on that executor when it has a free slot within {@code spark.locality.wait}, else elsewhere.
 */
final class ExecutorLocation {
  private ExecutorLocation() {}

  /** This executor's location, or null outside Spark (an operator driven by a test harness). */
  static @Nullable String here() {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      return null;
    }
    BlockManagerId id = env.blockManager().blockManagerId();
    return "executor_" + id.host() + "_" + id.executorId();
  }
}
