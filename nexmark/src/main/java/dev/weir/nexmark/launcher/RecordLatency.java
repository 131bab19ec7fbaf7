package dev.weir.nexmark.launcher;

import dev.weir.nexmark.generator.EventTimeline;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.joda.time.Instant;

/**
 * Counts, per {@link LatencyHistogram} bucket, how long after the event it waited for each output
 * of a rate-limited stream reaches the launcher's results step, which calls {@link #record} for
 * each. Every reader of that stream hands out an event at the same wall-clock time after one
 * common start as its event time is after the timeline's base, so the output's timestamp says
 * when the latest event it depends on arrived: a bid's own time for a per-event query; the end of
 * its window for a windowed aggregate, whose pane waits for the first event past that end.
 * Outputs stamped before {@code countFromMs} (the warm-up) or after the last event (panes that
 * only the end of the stream closes) are not counted.
 *
 * <p>Recorded in the step that counts the results rather than in a step of its own beside it: a
 * second reader of the query's output would make the runner keep that output for both (a fan-out
 * a query run without latency does not have), and the measure would change what it measures.
 */
public final class RecordLatency implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long streamStartWallMs;
  private final long countFromMs;
  private final long lastEventMs;
  private transient Map<String, Counter> counters;

  /** Event times are in ms since the epoch, as the timeline stamps them. */
  public RecordLatency(long streamStartWallMs, long countFromMs, long lastEventMs) {
    this.streamStartWallMs = streamStartWallMs;
    this.countFromMs = countFromMs;
    this.lastEventMs = lastEventMs;
  }

  /** Records the latency of an output stamped {@code timestamp}, reaching here now. */
  public void record(Instant timestamp) {
    long eventMs = timestamp.getMillis();
    if (eventMs < countFromMs || eventMs > lastEventMs) {
      return;
    }
    long arrivedWallMs = streamStartWallMs + (eventMs - EventTimeline.BASE_TIME_MS);
    String name = LatencyHistogram.counterName(System.currentTimeMillis() - arrivedWallMs);
    if (counters == null) {
      counters = new HashMap<>();
    }
    counters.computeIfAbsent(name, n -> Metrics.counter(LatencyHistogram.NAMESPACE, n)).inc();
  }
}
