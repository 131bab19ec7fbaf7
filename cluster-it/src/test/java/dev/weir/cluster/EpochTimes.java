package dev.weir.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a streaming run's epochs spend their time, from Spark's event log: WeirRunner runs each
 * epoch as one Spark job group ({@code weir-N-<job>-epoch-E}), each job described by its Beam step.
 * Per epoch: its period (from the end of the epoch before to the end of its last job), the jobs'
 * time and the driver's time between them (planning, watermarks, the commit to the checkpoint
 * dir), and inside the jobs, summed over tasks, Spark's own split of a task's time (deserializing
 * the task, running it, scheduler delay, shuffle fetch wait and write). Medians over the steady
 * epochs (the first {@link #WARM_UP} and the last are left out: class loading, the end of input).
 */
final class EpochTimes {
  static final int WARM_UP = 3;
  private static final Pattern EPOCH = Pattern.compile(".*-epoch-(\\d+)$");

  /** One epoch's figures, in milliseconds. */
  record Epoch(long epoch, long period, long jobsTime, long driverTime, int jobs, int tasks, long taskTime,
      long runTime, long deserializeTime, long schedulerDelay, long fetchWait, long shuffleWrite,
      long jobOverhead, int movedPartitions) {}

  private final List<Epoch> epochs = new ArrayList<>();
  private final Map<String, Long> stepTime = new TreeMap<>();

  private EpochTimes() {}

  static EpochTimes of(EventLog log) {
    EpochTimes times = new EpochTimes();
    Map<Integer, Integer> jobOfStage = new HashMap<>();
    TreeMap<Long, List<EventLog.Job>> byEpoch = new TreeMap<>();
    for (EventLog.Job job : log.jobs()) {
      Matcher m = job.group() == null ? null : EPOCH.matcher(job.group());
      if (m != null && m.matches()) {
        byEpoch.computeIfAbsent(Long.parseLong(m.group(1)), e -> new ArrayList<>()).add(job);
        job.stageIds().forEach(s -> jobOfStage.put(s, job.id()));
      }
    }
    Map<Integer, List<EventLog.Task>> tasksOfJob = new HashMap<>();
    for (EventLog.Task t : log.tasks()) {
      Integer job = jobOfStage.get(t.stageId());
      if (job != null) {
        tasksOfJob.computeIfAbsent(job, j -> new ArrayList<>()).add(t);
      }
    }
    // Where each step's partition ran the epoch before: a partition that moves reads its state
    // back from the checkpoint dir.
    Map<String, String> lastExecutor = new HashMap<>();
    long previousEnd = -1;
    for (Map.Entry<Long, List<EventLog.Job>> e : byEpoch.entrySet()) {
      List<EventLog.Job> jobs = e.getValue();
      long start = jobs.stream().mapToLong(EventLog.Job::submitted).min().orElse(0);
      long end = jobs.stream().mapToLong(EventLog.Job::completed).max().orElse(0);
      long jobsTime = jobs.stream().mapToLong(EventLog.Job::duration).sum();
      long period = end - (previousEnd < 0 ? start : previousEnd);
      previousEnd = end;
      int tasks = 0;
      long taskTime = 0;
      long run = 0;
      long deserialize = 0;
      long delay = 0;
      long fetchWait = 0;
      long shuffleWrite = 0;
      long overhead = 0;
      int moved = 0;
      for (EventLog.Job job : jobs) {
        List<EventLog.Task> ts = tasksOfJob.getOrDefault(job.id(), List.of());
        long firstLaunch = ts.stream().mapToLong(EventLog.Task::launchTime).min().orElse(job.submitted());
        long lastFinish = ts.stream().mapToLong(EventLog.Task::finishTime).max().orElse(job.completed());
        overhead += Math.max(0, firstLaunch - job.submitted()) + Math.max(0, job.completed() - lastFinish);
        for (EventLog.Task t : ts) {
          tasks++;
          taskTime += t.duration();
          run += t.runTime();
          deserialize += t.deserializeTime();
          delay += t.schedulerDelay();
          fetchWait += t.shuffleFetchWaitTime();
          shuffleWrite += t.shuffleWriteTimeNanos() / 1_000_000;
          String key = job.description() + "#" + t.index();
          String before = lastExecutor.put(key, t.executorId());
          if (t.succeeded() && before != null && !before.equals(t.executorId())) {
            moved++;
          }
        }
        if (e.getKey() >= WARM_UP) {
          times.stepTime.merge(String.valueOf(job.description()), job.duration(), Long::sum);
        }
      }
      times.epochs.add(new Epoch(e.getKey(), period, jobsTime, period - jobsTime, jobs.size(), tasks, taskTime, run,
          deserialize, delay, fetchWait, shuffleWrite, overhead, moved));
    }
    return times;
  }

  List<Epoch> epochs() {
    return epochs;
  }

  /** The epochs between the warm-up and the last. */
  List<Epoch> steady() {
    return epochs.stream().filter(e -> e.epoch() >= WARM_UP && e.epoch() < epochs.size()).toList();
  }

  long median(ToLongFunction<Epoch> figure) {
    long[] values = steady().stream().mapToLong(figure).sorted().toArray();
    return values.length == 0 ? 0 : values[values.length / 2];
  }

  /** Partition moves over all epochs (each one a state read from the checkpoint dir). */
  long moves() {
    return epochs.stream().mapToLong(Epoch::movedPartitions).sum();
  }

  /** The time of each step's job over the steady epochs, its median per epoch. */
  Map<String, Long> stepTimePerEpoch() {
    Map<String, Long> perEpoch = new TreeMap<>();
    int n = Math.max(1, steady().size());
    stepTime.forEach((step, total) -> perEpoch.put(step, total / n));
    return perEpoch;
  }

  /** A table of the medians of several runs side by side. */
  static String table(Map<String, EpochTimes> runs) {
    StringBuilder sb = new StringBuilder();
    String format = "%-44s" + "%22s".repeat(runs.size()) + "%n";
    List<Object> header = new ArrayList<>(List.of("median per steady epoch (ms)"));
    header.addAll(runs.keySet());
    sb.append(String.format(Locale.ROOT, format, header.toArray()));
    row(sb, format, runs, "epochs (all)", t -> t.epochs().size());
    row(sb, format, runs, "epoch period", t -> t.median(Epoch::period));
    row(sb, format, runs, "  Spark jobs (sum of job durations)", t -> t.median(Epoch::jobsTime));
    row(sb, format, runs, "  driver between jobs (plan, commit)", t -> t.median(Epoch::driverTime));
    row(sb, format, runs, "jobs per epoch", t -> t.median(Epoch::jobs));
    row(sb, format, runs, "tasks per epoch", t -> t.median(Epoch::tasks));
    row(sb, format, runs, "  job submit->first task + last task->end", t -> t.median(Epoch::jobOverhead));
    row(sb, format, runs, "  task time (sum over tasks)", t -> t.median(Epoch::taskTime));
    row(sb, format, runs, "    executor run time", t -> t.median(Epoch::runTime));
    row(sb, format, runs, "    task deserialization", t -> t.median(Epoch::deserializeTime));
    row(sb, format, runs, "    scheduler delay", t -> t.median(Epoch::schedulerDelay));
    row(sb, format, runs, "    shuffle fetch wait", t -> t.median(Epoch::fetchWait));
    row(sb, format, runs, "    shuffle write", t -> t.median(Epoch::shuffleWrite));
    row(sb, format, runs, "partition moves, all epochs (state reads)", EpochTimes::moves);
    for (String step : runs.values().iterator().next().stepTimePerEpoch().keySet()) {
      row(sb, format, runs, "job '" + (step.length() > 36 ? step.substring(0, 36) : step) + "'",
          t -> t.stepTimePerEpoch().getOrDefault(step, 0L));
    }
    return sb.toString();
  }

  private static void row(StringBuilder sb, String format, Map<String, EpochTimes> runs, String name,
      ToLongFunction<EpochTimes> figure) {
    List<Object> cells = new ArrayList<>(List.of(name));
    runs.values().forEach(t -> cells.add(figure.applyAsLong(t)));
    sb.append(String.format(Locale.ROOT, format, cells.toArray()));
  }
}
