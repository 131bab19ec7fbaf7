package dev.weir.translation.streaming;

import dev.weir.translation.runtime.DoFnInstances;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.function.VoidFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a streaming run leaves in executor JVMs, removed when it ends: the marks of its committed
 * epochs are finalized (some sources can only finalize through their open reader), its source
 * readers closed, its keyed state forgotten, its DoFn instances torn down. This JVM first (the
 * only executor of embedded Spark), then, on a cluster, one small task per executor the run
 * used, each preferring that executor. An executor that cannot be reached closes the run's
 * readers and tears down its DoFns itself once they have been idle for long ({@link
 * SplitReaders#IDLE_EVICTION_MILLIS}, {@code DoFnInstances.IDLE_EVICTION_MILLIS}).
 */
final class RunCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(RunCleanup.class);

  private RunCleanup() {}

  static void run(SparkContext sc, String runId, long committed, Set<String> executors) {
    new Cleanup(runId, committed).call(null);
    if (sc.isLocal() || sc.isStopped() || executors.isEmpty()) {
      return;
    }
    List<String> locations = new ArrayList<>(executors);
    try {
      sc.setJobDescription("end of run " + runId);
      LocatedRdds.parallelize(sc, locations, new ArrayList<>(locations), String.class).foreach(new Cleanup(runId, committed));
    } catch (RuntimeException e) {
      LOG.warn("Could not end run {} on every executor; they close its readers once idle", runId, e);
    } finally {
      sc.setJobDescription(null);
    }
  }

  private static final class Cleanup implements VoidFunction<String> {
    private final String runId;
    private final long committed;

    Cleanup(String runId, long committed) {
      this.runId = runId;
      this.committed = committed;
    }

    @Override
    public void call(String location) {
      SplitReaders.closeRun(runId, committed);
      BundleFinalizers.closeRun(runId, committed);
      dev.weir.translation.streaming.state.KeyedStateStore.dropRun(runId);
      DoFnInstances.closeRun(runId);
    }
  }
}
