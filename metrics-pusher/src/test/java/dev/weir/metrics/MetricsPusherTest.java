package dev.weir.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MetricsPusherTest {
  private final AtomicLong counter = new AtomicLong();

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
  }

  private static PipelineOptions options(Class<? extends MetricsSink> sink, long period) {
    MetricsOptions options = PipelineOptionsFactory.create().as(MetricsOptions.class);
    options.setMetricsSink(sink);
    options.setMetricsPushPeriod(period);
    return options;
  }

  private static boolean pusherThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("weir-metrics-pusher-test"));
  }

  @Test
  void pushesEveryPeriodThenOnceMoreWhenClosedAndStopsItsThread() throws Exception {
    counter.set(3);
    MetricsPusher pusher = MetricsPusher.start(options(RecordingSink.class, 1), () -> live, "test");
    assertThat(RecordingSink.firstPush.await(30, TimeUnit.SECONDS), is(true));
    counter.set(42);
    pusher.close();
    List<Long> pushed = RecordingSink.values;
    assertThat(pushed.size(), greaterThanOrEqualTo(2));
    assertThat(pushed.get(0), equalTo(3L));
    assertThat(pushed.get(pushed.size() - 1), equalTo(42L));
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void aFailingSinkIsLoggedAndNeverThrows() {
    MetricsPusher pusher = MetricsPusher.start(options(FailingSink.class, 1), () -> live, "test");
    pusher.close();
    assertThat(FailingSink.calls.get(), equalTo(1L));
    assertThat(pusherThreadAlive(), is(false));
  }

  @Test
  void withoutASinkNothingStarts() {
    MetricsPusher pusher = MetricsPusher.start(PipelineOptionsFactory.create(), () -> live, "test");
    assertThat(pusherThreadAlive(), is(false));
    pusher.close();
  }

  @Test
  void aSinkThatCannotBeCreatedNamesTheOption() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MetricsPusher.start(options(HttpJsonMetricsSink.class, 1), () -> live, "test"));
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

  /** Always fails. */
  public static final class FailingSink implements MetricsSink {
    static final AtomicLong calls = new AtomicLong();

    public FailingSink(MetricsOptions options) {
      calls.set(0);
    }

    @Override
    public void writeMetrics(MetricQueryResults results) throws Exception {
      calls.incrementAndGet();
      throw new java.io.IOException("sink down");
    }
  }
}
