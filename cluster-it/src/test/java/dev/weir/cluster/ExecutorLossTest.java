package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * One executor JVM of a running pipeline killed with {@code kill -9} on a two-worker cluster: its
 * Worker starts another, Spark runs the lost tasks again, and the pipeline must finish with the
 * output its input makes.
 *
 * <ul>
 *   <li>Batch ({@link SlowSumsPipeline}): killed once a task of the slow step has finished on it,
 *       so that the shuffle output that task left on its disk is gone and Spark must run that
 *       task again. The committed value of the step's counter must still be the input's count:
 *       committed metrics count each element once.
 *   <li>Streaming with {@code --checkpointDir} ({@link WindowSumsPipeline}): killed inside an
 *       epoch, after a few were committed. Its keyed partitions and source splits lived in that
 *       executor; they must run elsewhere with their state and marks from the checkpoint dir, and
 *       the queue-like source must see no mark finalized before its commit.
 * </ul>
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ExecutorLossTest extends TwoWorkerClusterTest {
  private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(4);
  private static final Pattern COUNTER = Pattern.compile("COUNTER elements attempted=(\\d+) committed=(\\d+)");


  @Test
  void batchPipelineLosesAnExecutorAfterItsFirstSlowTaskAndCountsEachElementOnce() throws Exception {
    long values = 400;
    // 8 tasks of 50 elements at 30 ms: ~1.5 s each, four per executor.
    int partitions = 8;
    Path out = Files.createDirectories(tmp.resolve("batch"));
    try (DriverJvm driver = DriverJvm.java(tmp, "slow-sums", cluster.sparkHome(), "1g", SlowSumsPipeline.class.getName(),
        List.of(out.resolve("sums").toString(), String.valueOf(values), "30",
            "--sparkMaster=" + cluster.master(), "--sparkConf=spark.sql.shuffle.partitions=" + partitions))) {
      String app = awaitApp(driver);
      // The victim: the first executor on which a task of the slow step finished while others
      // still run; its shuffle output is then on its disk only.
      AtomicReference<SparkCluster.Executor> victim = new AtomicReference<>();
      Poll.until("a finished task of the slow step", Duration.ofMinutes(3), () -> {
        long done = 0;
        SparkCluster.Executor first = null;
        for (SparkCluster.Executor e : cluster.executors(app)) {
          long here = Logs.count(e.stderr(), SlowSumsPipeline.BUNDLE_DONE);
          done += here;
          if (here > 0 && first == null) {
            first = e;
          }
        }
        if (first != null && done < partitions) {
          victim.set(first);
          return true;
        }
        return false;
      }, driver::exited);
      cluster.kill9(victim.get());

      driver.assertSucceeds(DRIVER_TIMEOUT);
      assertThat("output (log " + driver.log() + ")", Outputs.lines(out, "sums"), equalTo(SlowSumsPipeline.expected(values)));
      EventLog events = driver.eventLog();
      List<String> removed = events.executorsRemoved().stream().map(EventLog.ExecutorRemoved::id).toList();
      assertThat("executors the driver lost", removed, hasItem(victim.get().executorId()));
      assertThat("executors the application had", events.executorsAdded().size(), greaterThan(cluster.workers()));
      Matcher m = COUNTER.matcher(driver.output());
      assertThat("the driver printed the counter: " + driver.log(), m.find(), equalTo(true));
      long attempted = Long.parseLong(m.group(1));
      long committed = Long.parseLong(m.group(2));
      assertThat("attempted", attempted, greaterThanOrEqualTo(values));
      assertThat("committed value of counter " + SlowSumsPipeline.COUNTER + " (attempted " + attempted + "; "
              + rerunMapTasks(events) + "; log " + driver.log() + ")",
          committed, equalTo(values));
    }
  }

  /** With each state backend: the lost executor's keyed partitions come back from the checkpoint dir elsewhere. */
  @ParameterizedTest
  @ValueSource(strings = {"memory", "rocksdb"})
  void streamingPipelineLosesAnExecutorInsideAnEpochAndResumesItsStateFromTheCheckpointDir(String backend) throws Exception {
    long values = 240;
    Path here = Files.createDirectories(tmp.resolve("streaming-" + backend));
    Path out = here.resolve("windows");
    Path acks = Files.createDirectories(here.resolve("acks"));
    Path checkpoints = here.resolve("checkpoints");
    try (DriverJvm driver = DriverJvm.java(here, "window-sums", cluster.sparkHome(), "1g", WindowSumsPipeline.class.getName(),
        List.of(out.toString(), acks.toString(), String.valueOf(values),
            "--sparkMaster=" + cluster.master(), "--checkpointDir=" + checkpoints, "--epochMaxRecords=4",
            "--stateBackend=" + backend))) {
      String app = awaitApp(driver);
      // Inside an epoch: a few committed, and the next one has read its sources.
      Poll.until("epoch 5 committed and epoch 6 begun", Duration.ofMinutes(3),
          () -> Checkpoints.committedEpoch(checkpoints) >= 5
              && Checkpoints.hasReadPlan(checkpoints, Checkpoints.committedEpoch(checkpoints) + 1),
          driver::exited);
      List<SparkCluster.Executor> executors = cluster.executors(app);
      SparkCluster.Executor victim = executors.get(0);
      long killedAfter = Checkpoints.committedEpoch(checkpoints);
      cluster.kill9(victim);

      driver.assertSucceeds(DRIVER_TIMEOUT);
      assertThat("windows written (executor " + victim.executorId() + " killed after epoch " + killedAfter + ", log "
          + driver.log() + ")", Outputs.windowFiles(out), equalTo(WindowSumsPipeline.expected(values)));
      assertThat("marks finalized too early", AckingQueueSource.violations(acks), equalTo(""));
      assertThat("what the splits acknowledged at the end", AckingQueueSource.acknowledgements(acks),
          equalTo(List.of(values, values + 1)));
      EventLog events = driver.eventLog();
      List<String> removed = events.executorsRemoved().stream().map(EventLog.ExecutorRemoved::id).toList();
      assertThat("executors the driver lost", removed, hasItem(victim.executorId()));
      if (backend.equals("rocksdb")) {
        // The lost executor's partitions came back on another from the checkpoint dir's files.
        long downloads = 0;
        for (Path dir : cluster.executorDirs(app)) {
          downloads += Logs.count(dir.resolve("stderr"), "read from the checkpoint dir");
        }
        assertThat("RocksDB partitions read from the checkpoint dir by another executor", downloads, greaterThan(0L));
      }
    }
  }

  /** The application id, once the driver has registered and both workers run an executor for it. */
  static String awaitApp(DriverJvm driver) throws Exception {
    AtomicReference<String> app = new AtomicReference<>();
    Poll.until("an application with an executor on each worker", Duration.ofMinutes(3), () -> {
      driver.appId().ifPresent(app::set);
      return app.get() != null && cluster.executors(app.get()).size() == cluster.workers();
    }, driver::exited);
    return app.get();
  }

  /**
   * Map tasks Spark ran again after they had succeeded (their output was on the lost executor):
   * partitions of a shuffle map stage with more than one successful attempt.
   */
  private static String rerunMapTasks(EventLog events) {
    List<String> rerun = new ArrayList<>();
    java.util.Map<String, List<EventLog.Task>> byPartition = new java.util.TreeMap<>();
    for (EventLog.Task t : events.tasks()) {
      if (t.succeeded()) {
        byPartition.computeIfAbsent("stage " + t.stageId() + " partition " + t.index(), k -> new ArrayList<>()).add(t);
      }
    }
    byPartition.forEach((k, ts) -> {
      if (ts.size() > 1) {
        rerun.add(k + " succeeded on executors " + ts.stream().map(EventLog.Task::executorId).toList());
      }
    });
    return "tasks that succeeded twice: " + rerun;
  }
}
