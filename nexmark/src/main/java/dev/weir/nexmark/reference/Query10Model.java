package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Done;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Query 10, LOG_TO_SHARDED_FILES: one {@link Done} per fixed window (windowSizeSec) that has
 * events, once all its files are written. What the files must hold is {@link Query10Files}.
 */
final class Query10Model implements ReferenceModel<Done> {
  @Override
  public Collection<Done> expected(List<TimestampedValue<Event>> events, NexmarkConfig config) {
    long size = config.windowSizeSec * 1000L;
    TreeSet<Long> starts = new TreeSet<>();
    for (TimestampedValue<Event> e : events) {
      starts.add(WindowMath.fixedStart(e.getTimestamp().getMillis(), size));
    }
    List<Done> out = new ArrayList<>();
    for (long start : starts) {
      // The window's last instant, as Beam's window.maxTimestamp() prints it.
      out.add(new Done("written for timestamp " + new Instant(start + size - 1)));
    }
    return out;
  }
}
