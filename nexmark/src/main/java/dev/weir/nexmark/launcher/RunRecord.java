package dev.weir.nexmark.launcher;

import java.time.Instant;

/**
 * One query run as the results history keeps it; {@code runId} names the launch it was part of.
 * The heap figures are the launcher JVM's during the run ({@link HeapWatch}), -1 where unknown
 * (runs recorded before they were, or no collection during the run). The latencies (ms, p50 and
 * p99, {@link RecordLatency}) are those of a rate-limited streaming run, -1 for other runs.
 */
public record RunRecord(
    String runId,
    Instant time,
    String commit,
    String runner,
    String mode,
    int query,
    long events,
    long runtimeMs,
    double eventsPerSecond,
    long results,
    boolean correct,
    long peakHeapMb,
    long liveHeapMb,
    long latencyP50Ms,
    long latencyP99Ms) {

  /** A run without latencies. */
  public RunRecord(String runId, Instant time, String commit, String runner, String mode, int query, long events,
      long runtimeMs, double eventsPerSecond, long results, boolean correct, long peakHeapMb, long liveHeapMb) {
    this(runId, time, commit, runner, mode, query, events, runtimeMs, eventsPerSecond, results, correct, peakHeapMb,
        liveHeapMb, -1, -1);
  }

  /** A run without heap figures or latencies. */
  public RunRecord(String runId, Instant time, String commit, String runner, String mode, int query, long events,
      long runtimeMs, double eventsPerSecond, long results, boolean correct) {
    this(runId, time, commit, runner, mode, query, events, runtimeMs, eventsPerSecond, results, correct, -1, -1);
  }
}
