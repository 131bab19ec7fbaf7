package dev.weir.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pusher's contract, without depending on how fast the machine is: a test either waits for
 * the pushes it needs (a latch, with a deadline only so that a broken pusher fails instead of
 * hanging), or uses a period so long that the only push is the one {@link MetricsPusher#close}
 * makes. No test counts pushes against the clock.
 */
class MetricsPusherTest {
  /** No periodic push can come while a test runs, so the only push is close()'s. */
  private static final long NO_PERIODIC_PUSH = TimeUnit.DAYS.toSeconds(1);
  /** Only a pusher that never pushes again waits this long. */
  private static final long HANG_GUARD_SECONDS = 60;

  private static final AtomicInteger IDS = new AtomicInteger();

  private final AtomicLong counter = new AtomicLong();
  /** Each test's own pusher name, so that a pusher a failed test left running fails only that test. */
  private final String name = "test-" + IDS.incrementAndGet();

  /** Metric results whose only counter reads {@link #counter} at query time. */
  private final MetricResults live = new MetricResults() {
    @Override
    public MetricQueryResults queryMetrics(MetricsFilter filter) {
      return MetricQueryResults.create(
          List.of(TestResults.result("step", "ns", "n", counter.get(), counter.get())),
          List.of(), List.of(), List.of(), List.of(), List.of());
    }
  };

  @BeforeEach
  void reset() {
    RecordingSink.reset();
    FailingSink.reset();
  }

  private static PipelineOptions options(Class<? extends MetricsSink> sink, long period) {
    MetricsOptions options = PipelineOptionsFactory.create().as(MetricsOptions.class);
    options.setMetricsSink(sink);
    options.setMetricsPushPeriod(period);
    return options;
  }

  private boolean pusherThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().equals("weir-metrics-pusher-" + name));
  }

  @Test
  void pushesEveryPeriodThenOnceMoreWhenClosedAndStopsItsThread() throws Exception {
    counter.set(3);
    MetricsPusher pusher = MetricsPusher.start(options(RecordingSink.class, 1), () -> live, name);
    try {
      // The first periodic push read 3: the counter changes only once it has been recorded.
      assertThat("a periodic push", RecordingSink.firstPush.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS), is(true));
      counter.set(42);
    } finally {
      pusher.close();
    }
    List<Long> pushed = RecordingSink.values;
    assertThat(pushed.size(), greaterThanOrEqualTo(2));
    assertThat(pushed.get(0), equalTo(3L));
    assertThat(pushed.get(pushed.size() - 1), equalTo(42L));
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void aPusherClosedBeforeItsFirstPeriodPushesOnceTheValueAtClose() {
    counter.set(3);
    MetricsPusher pusher = MetricsPusher.start(options(RecordingSink.class, NO_PERIODIC_PUSH), () -> live, name);
    counter.set(42);
    pusher.close();
    assertThat(RecordingSink.values, equalTo(List.of(42L)));
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void aFailingSinkIsLoggedAndNeverThrows() {
    try (CapturedLogs logs = new CapturedLogs(MetricsPusher.class)) {
      MetricsPusher pusher = MetricsPusher.start(options(FailingSink.class, NO_PERIODIC_PUSH), () -> live, name);
      assertDoesNotThrow(pusher::close);
      assertThat(FailingSink.calls.get(), equalTo(1L));
      List<LogEvent> events = logs.events();
      assertThat(events, hasSize(1));
      LogEvent warning = events.get(0);
      assertThat(warning.getLevel(), equalTo(Level.WARN));
      assertThat(warning.getMessage().getFormattedMessage(), containsString(FailingSink.class.getName()));
      assertThat(warning.getThrown().getMessage(), equalTo("sink down"));
    }
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void aFailedPushDoesNotStopLaterPushes() throws Exception {
    MetricsPusher pusher = MetricsPusher.start(options(FailingSink.class, 1), () -> live, name);
    try {
      // A periodic task that threw would never run again: a second call proves the schedule survived.
      assertThat("a push after a failed one", FailingSink.secondCall.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS), is(true));
    } finally {
      pusher.close();
    }
    // Two failed periodic pushes, then close() still made its final one.
    assertThat(FailingSink.calls.get(), greaterThanOrEqualTo(3L));
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void withoutASinkNothingStarts() {
    MetricsPusher pusher = MetricsPusher.start(PipelineOptionsFactory.create(), () -> live, name);
    assertThat(pusherThreadAlive(), is(false));
    pusher.close();
  }

  @Test
  void aSinkThatCannotBeCreatedNamesTheOption() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MetricsPusher.start(options(HttpJsonMetricsSink.class, 1), () -> live, name));
    assertThat(e.getMessage(), containsString("--metricsSink=dev.weir.metrics.HttpJsonMetricsSink"));
    assertThat(e.getMessage(), containsString("--metricsHttpSinkUrl"));
  }

  /** Records the first counter of every push. */
  public static final class RecordingSink implements MetricsSink {
    static List<Long> values = new CopyOnWriteArrayList<>();
    static CountDownLatch firstPush = new CountDownLatch(1);

    public RecordingSink(MetricsOptions options) {}

    static void reset() {
      values = new CopyOnWriteArrayList<>();
      firstPush = new CountDownLatch(1);
    }

    @Override
    public void writeMetrics(MetricQueryResults results) {
      values.add(results.getCounters().iterator().next().getAttempted());
      firstPush.countDown();
    }
  }

  /** Always fails, counting its calls. */
  public static final class FailingSink implements MetricsSink {
    static final AtomicLong calls = new AtomicLong();
    static CountDownLatch secondCall = new CountDownLatch(2);

    public FailingSink(MetricsOptions options) {}

    static void reset() {
      calls.set(0);
      secondCall = new CountDownLatch(2);
    }

    @Override
    public void writeMetrics(MetricQueryResults results) throws Exception {
      calls.incrementAndGet();
      secondCall.countDown();
      throw new java.io.IOException("sink down");
    }
  }
}
