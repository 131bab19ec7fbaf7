package dev.weir.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A Spark application's event log (uncompressed JSON lines, as {@code spark.eventLog.*} writes
 * them): its executors, jobs, stage attempts and tasks, with the times Spark measured. Spark's
 * own record of where each task ran and how long each part took.
 */
final class EventLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A task attempt as it ended. Times in milliseconds, except where named otherwise. */
  record Task(
      int stageId,
      int stageAttempt,
      long taskId,
      int index,
      int attempt,
      String executorId,
      long launchTime,
      long finishTime,
      String reason,
      JsonNode endReason,
      long deserializeTime,
      long runTime,
      long resultSerializationTime,
      long gettingResultTime,
      long gcTime,
      long shuffleFetchWaitTime,
      long shuffleWriteTimeNanos,
      long shuffleBytesRead,
      long shuffleBytesWritten) {
    boolean succeeded() {
      return reason.equals("Success");
    }

    long duration() {
      return finishTime - launchTime;
    }

    /**
     * What the Spark UI calls scheduler delay: the task's time not spent deserializing, running or
     * sending its result (the launch message, the result's way back, queueing in the executor).
     */
    long schedulerDelay() {
      return Math.max(0, duration() - deserializeTime - runTime - resultSerializationTime - gettingResultTime);
    }
  }

  /** A job: when the driver submitted it, when it ended, its job group and description. */
  record Job(int id, long submitted, long completed, @Nullable String group, @Nullable String description,
      List<Integer> stageIds, String result) {
    long duration() {
      return completed - submitted;
    }
  }

  /** A stage attempt that ran (a stage whose output Spark reused is never submitted). */
  record StageAttempt(int stageId, int attempt, String name, int tasks, long submitted, long completed,
      @Nullable String failure) {}

  record ExecutorRemoved(String id, long time, String reason) {}

  private long appStart;
  private long appEnd;
  private final Map<String, Long> executorsAdded = new LinkedHashMap<>();
  private final List<ExecutorRemoved> executorsRemoved = new ArrayList<>();
  private final Map<Integer, Job> jobs = new LinkedHashMap<>();
  private final Map<String, StageAttempt> stages = new LinkedHashMap<>();
  private final List<Task> tasks = new ArrayList<>();

  private EventLog() {}

  static EventLog read(Path file) throws IOException {
    EventLog log = new EventLog();
    Map<Integer, JsonNode> jobStarts = new LinkedHashMap<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode e;
        try {
          e = JSON.readTree(line);
        } catch (IOException truncated) {
          break; // the last line of a log whose driver was killed
        }
        switch (e.path("Event").asText()) {
          case "SparkListenerApplicationStart" -> log.appStart = e.path("Timestamp").asLong();
          case "SparkListenerApplicationEnd" -> log.appEnd = e.path("Timestamp").asLong();
          case "SparkListenerExecutorAdded" -> log.executorsAdded.put(e.path("Executor ID").asText(), e.path("Timestamp").asLong());
          case "SparkListenerExecutorRemoved" -> log.executorsRemoved.add(new ExecutorRemoved(
              e.path("Executor ID").asText(), e.path("Timestamp").asLong(), e.path("Removed Reason").asText()));
          case "SparkListenerJobStart" -> jobStarts.put(e.path("Job ID").asInt(), e);
          case "SparkListenerJobEnd" -> {
            JsonNode start = jobStarts.get(e.path("Job ID").asInt());
            if (start != null) {
              log.jobs.put(start.path("Job ID").asInt(), job(start, e));
            }
          }
          case "SparkListenerStageCompleted" -> {
            JsonNode s = e.path("Stage Info");
            StageAttempt stage = new StageAttempt(s.path("Stage ID").asInt(), s.path("Stage Attempt ID").asInt(),
                s.path("Stage Name").asText(), s.path("Number of Tasks").asInt(), s.path("Submission Time").asLong(),
                s.path("Completion Time").asLong(), s.hasNonNull("Failure Reason") ? s.path("Failure Reason").asText() : null);
            log.stages.put(stage.stageId() + "." + stage.attempt(), stage);
          }
          case "SparkListenerTaskEnd" -> log.tasks.add(task(e));
          default -> { }
        }
      }
    }
    return log;
  }

  private static Job job(JsonNode start, JsonNode end) {
    List<Integer> stageIds = new ArrayList<>();
    start.path("Stage IDs").forEach(id -> stageIds.add(id.asInt()));
    JsonNode props = start.path("Properties");
    return new Job(start.path("Job ID").asInt(), start.path("Submission Time").asLong(), end.path("Completion Time").asLong(),
        props.hasNonNull("spark.jobGroup.id") ? props.path("spark.jobGroup.id").asText() : null,
        props.hasNonNull("spark.job.description") ? props.path("spark.job.description").asText() : null,
        stageIds, end.path("Job Result").path("Result").asText());
  }

  private static Task task(JsonNode e) {
    JsonNode info = e.path("Task Info");
    JsonNode m = e.path("Task Metrics");
    JsonNode read = m.path("Shuffle Read Metrics");
    JsonNode write = m.path("Shuffle Write Metrics");
    return new Task(e.path("Stage ID").asInt(), e.path("Stage Attempt ID").asInt(), info.path("Task ID").asLong(),
        info.path("Index").asInt(), info.path("Attempt").asInt(), info.path("Executor ID").asText(),
        info.path("Launch Time").asLong(), info.path("Finish Time").asLong(),
        e.path("Task End Reason").path("Reason").asText(), e.path("Task End Reason"),
        m.path("Executor Deserialize Time").asLong(), m.path("Executor Run Time").asLong(),
        m.path("Result Serialization Time").asLong(), info.path("Getting Result Time").asLong(),
        m.path("JVM GC Time").asLong(), read.path("Fetch Wait Time").asLong(), write.path("Shuffle Write Time").asLong(),
        read.path("Remote Bytes Read").asLong() + read.path("Local Bytes Read").asLong(),
        write.path("Shuffle Bytes Written").asLong());
  }

  long appStart() {
    return appStart;
  }

  long appEnd() {
    return appEnd;
  }

  /** Executor id to the time it was added. */
  Map<String, Long> executorsAdded() {
    return executorsAdded;
  }

  List<ExecutorRemoved> executorsRemoved() {
    return executorsRemoved;
  }

  List<Job> jobs() {
    return new ArrayList<>(jobs.values());
  }

  List<StageAttempt> stageAttempts() {
    return new ArrayList<>(stages.values());
  }

  List<Task> tasks() {
    return tasks;
  }

  /** The executors on which some task succeeded. */
  Set<String> executorsThatRanTasks() {
    Set<String> ids = new TreeSet<>();
    for (Task t : tasks) {
      if (t.succeeded()) {
        ids.add(t.executorId());
      }
    }
    return ids;
  }

  /** How many task attempts ended for this reason ({@code Success}, {@code ExecutorLostFailure}, ...). */
  long tasksEndedWith(String reason) {
    return tasks.stream().filter(t -> t.reason().equals(reason)).count();
  }
}
