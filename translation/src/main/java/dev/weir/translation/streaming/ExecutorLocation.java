package dev.weir.translation.streaming;

import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;

/**
 * Where a task runs, in the form Spark's scheduler takes as a preferred location ({@code
 * executor_<host>_<executorId>}, an executor-cache location): a task preferring it is scheduled
 * on that executor when it has a free slot within {@code spark.locality.wait}, else elsewhere.
 */
final class ExecutorLocation {
  private ExecutorLocation() {}

  /** This executor's location. */
  static String here() {
    BlockManagerId id = SparkEnv.get().blockManager().blockManagerId();
    return "executor_" + id.host() + "_" + id.executorId();
  }
}
