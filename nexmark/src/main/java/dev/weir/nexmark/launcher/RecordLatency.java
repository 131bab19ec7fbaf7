package dev.weir.nexmark.launcher;

import dev.weir.nexmark.generator.EventTimeline;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.joda.time.Instant;

/**
 * Counts, per {@link LatencyHistogram} bucket, how long after the event it waited for each output
 * of a rate-limited stream appears here. Every reader of that stream hands out an event at the
 * same wall-clock time after one common start as its event time is after the timeline's base, so
 * the output's timestamp says when the latest event it depends on arrived: a bid's own time for a
 * per-event query; the end of its window for a windowed aggregate, whose pane waits for the first
 * event past that end. Outputs stamped before {@code countFromMs} (the warm-up) or after the last
 * event (panes that only the end of the stream closes) are not counted.
 */
public final class RecordLatency extends DoFn<Object, Void> {
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

  @ProcessElement
  public void process(@Timestamp Instant timestamp) {
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
