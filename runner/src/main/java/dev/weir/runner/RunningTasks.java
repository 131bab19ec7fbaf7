package dev.weir.runner;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.StageInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * How many tasks of each Spark job group are running, counted from Spark's task start and end
 * events, so that a failed pipeline can wait for the tasks Spark killed: they stop on their own
 * threads a little after the job failed, and until then user code (a DoFn's {@code @Setup} or
 * {@code @Teardown}) may still run.
 *
 * <p>Counted here rather than read from Spark's status tracker: the tracker's executor summaries
 * are live entities that Spark writes to its store at most every {@code
 * spark.ui.liveUpdate.period} (100 ms) while tasks start, so right after a failure it could read
 * 0 while a killed task was still about to set up and tear down a DoFn (seen as Beam's
 * ParDoLifecycleTest finding a DoFn of one test set up in the next).
 *
 * <p>Owner: one per SparkContext, registered as its listener when the first pipeline starts on
 * it; it holds a counter per stage of a job group, and forgets a stage once its job ended and
 * its last task did.
 */
final class RunningTasks extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(RunningTasks.class);
  private static final String JOB_GROUP = "spark.jobGroup.id";
  private static final Map<SparkContext, RunningTasks> BY_CONTEXT = new WeakHashMap<>();

  /** A stage of a job that started in a group, and how many of its tasks run. */
  private static final class Stage {
    final String group;
    final AtomicInteger running = new AtomicInteger();
    /** Whether the job that listed it last has ended. */
    volatile boolean ended;

    Stage(String group) {
      this.group = group;
    }
  }

  private final Map<Integer, Stage> stages = new ConcurrentHashMap<>();
  private final Map<Integer, int[]> jobStages = new ConcurrentHashMap<>();

  private RunningTasks() {}

  /** The counter of {@code sparkContext}, registered on first use. */
  static synchronized RunningTasks of(SparkContext sparkContext) {
    return BY_CONTEXT.computeIfAbsent(sparkContext, sc -> {
      // No reference back to the context: the map would then keep every stopped one.
      RunningTasks tasks = new RunningTasks();
      sc.addSparkListener(tasks);
      return tasks;
    });
  }

  @Override
  public void onJobStart(SparkListenerJobStart jobStart) {
    Properties properties = jobStart.properties();
    String group = properties == null ? null : properties.getProperty(JOB_GROUP);
    if (group == null) {
      return;
    }
    List<StageInfo> infos = CollectionConverters.asJava(jobStart.stageInfos());
    int[] ids = new int[infos.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = infos.get(i).stageId();
      Stage stage = stages.computeIfAbsent(ids[i], id -> new Stage(group));
      // A stage that runs again (a retry, a shuffle map stage another job shares) is listed
      // again by the job that submits it.
      stage.ended = false;
    }
    jobStages.put(jobStart.jobId(), ids);
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart taskStart) {
    Stage stage = stages.get(taskStart.stageId());
    if (stage != null) {
      stage.running.incrementAndGet();
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
    Stage stage = stages.get(taskEnd.stageId());
    if (stage != null && stage.running.decrementAndGet() <= 0 && stage.ended) {
      stages.remove(taskEnd.stageId(), stage);
    }
  }

  @Override
  public void onJobEnd(SparkListenerJobEnd jobEnd) {
    // A failed job ends before the tasks Spark killed: their stages are forgotten after them.
    int[] ids = jobStages.remove(jobEnd.jobId());
    for (int id : ids == null ? new int[0] : ids) {
      Stage stage = stages.get(id);
      if (stage != null) {
        stage.ended = true;
        if (stage.running.get() <= 0) {
          stages.remove(id, stage);
        }
      }
    }
  }

  /** Tasks of {@code jobGroup}, and of groups named {@code jobGroup-...}, now running. */
  int running(String jobGroup) {
    int n = 0;
    for (Stage stage : stages.values()) {
      if (stage.group.equals(jobGroup) || stage.group.startsWith(jobGroup + "-")) {
        n += Math.max(0, stage.running.get());
      }
    }
    return n;
  }

  /**
   * Waits until no task of {@code jobGroup} (or its sub-groups) runs, at most {@code timeoutMillis}.
   * Spark's listener bus is drained first: the scheduler posts a task's start before it handles
   * the failure that ends the task's job, so once drained every task of the failed job is
   * counted.
   */
  void awaitNone(SparkContext sparkContext, String jobGroup, long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    try {
      // The bus is Spark-internal (private[spark] in Scala, public to Java); it has no public
      // way to know that every event posted so far reached the listeners.
      sparkContext.listenerBus().waitUntilEmpty(Math.max(1, timeoutMillis / 3));
    } catch (TimeoutException e) {
      LOG.warn("Spark's listener bus did not drain in {} ms; counting running tasks anyway", timeoutMillis / 3);
    } catch (RuntimeException e) {
      LOG.debug("Spark's listener bus could not be drained", e);
    }
    while (running(jobGroup) > 0) {
      if (System.nanoTime() >= deadline) {
        LOG.warn("{} task(s) of failed pipeline {} were still running after {} ms", running(jobGroup), jobGroup, timeoutMillis);
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
