package dev.weir.translation.runtime;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.nullValue;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The order in which one key's timers fire as its clock and watermark move, and what the end of
 * input does to processing time; the expected firings follow Beam's timer model (a timer is due
 * once its domain's time has passed it) and the {@code --processingTime*} options.
 */
class TimerAdvanceTest {
  private static final Instant END = BoundedWindow.TIMESTAMP_MAX_VALUE;

  private static TimePolicies policies(TimePolicies.ProcessingTimeEndOfInput endOfInput) {
    return new TimePolicies(TimePolicies.ProcessingTimeTimers.ALLOW, endOfInput, TimePolicies.WindowTriggers.ALLOW);
  }

  private static TimerData timer(String id, long at, TimeDomain domain) {
    return TimerData.of(id, "", StateNamespaces.global(), new Instant(at), new Instant(at), domain);
  }

  /** Records what fires, as "id@batch"; firing the timer {@code when} sets {@code then}. */
  private static final class Recorder implements TimerAdvance.Firing {
    final InMemoryTimerInternals timers;
    final List<String> fired = new ArrayList<>();
    final Map<String, TimerData> sets = new HashMap<>();
    int batches;

    Recorder(InMemoryTimerInternals timers) {
      this.timers = timers;
    }

    Recorder setting(String when, TimerData then) {
      sets.put(when, then);
      return this;
    }

    @Override
    public void fire(List<TimerData> due) {
      batches++;
      for (TimerData t : due) {
        fired.add(t.getTimerId() + "@" + batches);
        TimerData then = sets.get(t.getTimerId());
        if (then != null) {
          timers.setTimer(then);
        }
      }
    }
  }

  private static InMemoryTimerInternals clockAt(long millis) throws Exception {
    InMemoryTimerInternals timers = new InMemoryTimerInternals();
    timers.advanceProcessingTime(new Instant(millis));
    return timers;
  }

  @Test
  void atTheEndOfInputPendingProcessingTimersFireOnceBeforeTheWatermarkAndWhatTheySetIsDropped() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("event", 50, TimeDomain.EVENT_TIME));
    timers.setTimer(timer("later", 10_000, TimeDomain.PROCESSING_TIME));
    Recorder firing = new Recorder(timers).setting("later", timer("again", 20_000, TimeDomain.PROCESSING_TIME));
    new TimerAdvance(policies(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE), TimerAdvance.Batching.ONE_BY_ONE)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(101), END, null);
    assertThat(firing.fired, contains("later@1", "event@2"));
    assertThat("what the last firing set is dropped", timers.removeNextProcessingTimer(), nullValue());
  }

  @Test
  void withIgnoreTheEndOfInputDropsPendingProcessingTimersUnfired() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("event", 50, TimeDomain.EVENT_TIME));
    timers.setTimer(timer("later", 10_000, TimeDomain.PROCESSING_TIME));
    timers.setTimer(timer("due", 90, TimeDomain.PROCESSING_TIME));
    Recorder firing = new Recorder(timers);
    new TimerAdvance(policies(TimePolicies.ProcessingTimeEndOfInput.IGNORE), TimerAdvance.Batching.ONE_BY_ONE)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(101), END, null);
    // "due" had come due before the input ended: it fires whatever the policy.
    assertThat(firing.fired, contains("due@1", "event@2"));
    assertThat(timers.removeNextProcessingTimer(), nullValue());
  }

  @Test
  void beforeTheEndTheWatermarksTimersFireThenWhatTheStepsClockMakesDue() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("atStepClock", 150, TimeDomain.PROCESSING_TIME));
    timers.setTimer(timer("pastStepClock", 500, TimeDomain.PROCESSING_TIME));
    timers.setTimer(timer("event", 20, TimeDomain.EVENT_TIME));
    timers.setTimer(timer("eventLater", 40, TimeDomain.EVENT_TIME));
    Recorder firing = new Recorder(timers);
    new TimerAdvance(policies(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE), TimerAdvance.Batching.ONE_BY_ONE)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(100), new Instant(30), new Instant(200));
    assertThat(firing.fired, contains("event@1", "atStepClock@2"));
  }

  @Test
  void aTimerThatFiringSetsAndThatIsDueFiresInTheSameAdvance() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("first", 10, TimeDomain.EVENT_TIME));
    Recorder firing = new Recorder(timers).setting("first", timer("second", 20, TimeDomain.EVENT_TIME));
    new TimerAdvance(policies(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE), TimerAdvance.Batching.TOGETHER)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(100), new Instant(30), null);
    assertThat(firing.fired, contains("first@1", "second@2"));
  }

  @Test
  void togetherHandsEveryDueTimerInOneBatch() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("a", 10, TimeDomain.EVENT_TIME));
    timers.setTimer(timer("b", 20, TimeDomain.EVENT_TIME));
    Recorder firing = new Recorder(timers);
    new TimerAdvance(policies(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE), TimerAdvance.Batching.TOGETHER)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(100), new Instant(30), null);
    assertThat(firing.fired, contains("a@1", "b@1"));
  }

  @Test
  void withoutProcessingTimeTimersOnlyTheWatermarkFires() throws Exception {
    InMemoryTimerInternals timers = clockAt(100);
    timers.setTimer(timer("processing", 50, TimeDomain.PROCESSING_TIME));
    Recorder firing = new Recorder(timers);
    TimePolicies ignore =
        new TimePolicies(
            TimePolicies.ProcessingTimeTimers.IGNORE,
            TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE,
            TimePolicies.WindowTriggers.ALLOW);
    new TimerAdvance(ignore, TimerAdvance.Batching.ONE_BY_ONE)
        .advance(TimerAdvance.inMemory(timers), firing, new Instant(200), END, new Instant(300));
    assertThat(firing.fired, empty());
  }
}
