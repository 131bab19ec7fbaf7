package dev.weir.nexmark;

import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A stream of events cut into consecutive groups, fed to a pipeline by a {@link TestStream}, so
 * that when the watermark or the processing clock moves is decided by the test (and a model can
 * follow it): a runner processes each TestStream event before it applies the next.
 */
public final class EventGroups {
  private final List<List<TimestampedValue<Event>>> groups = new ArrayList<>();

  /** {@code events} (in stream order) in groups of {@code size}. */
  public EventGroups(List<TimestampedValue<Event>> events, int size) {
    for (int i = 0; i < events.size(); i += size) {
      groups.add(List.copyOf(events.subList(i, Math.min(events.size(), i + size))));
    }
  }

  public List<List<TimestampedValue<Event>>> groups() {
    return groups;
  }

  /**
   * The watermark after each group: 1 ms before the next group's earliest event (the end of
   * time after the last). Events are at whole multiples of 10 ms in the tests, so no timer set
   * from an event time plus whole seconds lies exactly on a watermark.
   */
  public List<Long> watermarksMs() {
    List<Long> marks = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      if (i == groups.size() - 1) {
        marks.add(BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis());
      } else {
        long next = Long.MAX_VALUE;
        for (TimestampedValue<Event> e : groups.get(i + 1)) {
          next = Math.min(next, e.getTimestamp().getMillis());
        }
        marks.add(next - 1);
      }
    }
    return marks;
  }

  /** Each group, then the watermark moves to {@link #watermarksMs()} of that group. */
  public TestStream<Event> withWatermarks() {
    TestStream.Builder<Event> stream = TestStream.create(Event.EventCoder.INSTANCE);
    List<Long> marks = watermarksMs();
    for (int i = 0; i < groups.size(); i++) {
      stream = add(stream, groups.get(i));
      stream = i == groups.size() - 1 ? stream : stream.advanceWatermarkTo(new Instant(marks.get(i)));
    }
    return stream.advanceWatermarkToInfinity();
  }

  /**
   * Each group, then the processing clock moves on by {@code stepMs}; after the last group by
   * {@code lastStepMs}, then the watermark goes to the end of time.
   */
  public TestStream<Event> withClockSteps(long stepMs, long lastStepMs) {
    TestStream.Builder<Event> stream = TestStream.create(Event.EventCoder.INSTANCE);
    for (int i = 0; i < groups.size(); i++) {
      stream = add(stream, groups.get(i))
          .advanceProcessingTime(Duration.millis(i == groups.size() - 1 ? lastStepMs : stepMs));
    }
    return stream.advanceWatermarkToInfinity();
  }

  @SuppressWarnings("unchecked")
  private static TestStream.Builder<Event> add(TestStream.Builder<Event> stream, List<TimestampedValue<Event>> group) {
    TimestampedValue<Event>[] rest = group.subList(1, group.size()).toArray(TimestampedValue[]::new);
    return stream.addElements(group.get(0), rest);
  }
}
