package dev.weir.translation.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.io.Closeable;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsEnvironment;
import org.junit.jupiter.api.Test;

/** Counters found by their name's identity still count each name on its own, and by its value. */
class StepMetricsContainerTest {

  @Test
  void namesCountedInTurnKeepTheirOwnCounts() throws Exception {
    assertEachCountsItsOwn(3);
  }

  @Test
  void moreNamesThanSlotsCountedInTurnKeepTheirOwnCounts() throws Exception {
    assertEachCountsItsOwn(6);
  }

  /** {@code names} counters, counted in turn ten times, counter i by i + 1 each time. */
  private static void assertEachCountsItsOwn(int names) throws Exception {
    StepMetricsContainer container = new StepMetricsContainer("step");
    Counter[] counters = new Counter[names];
    for (int i = 0; i < counters.length; i++) {
      counters[i] = Metrics.counter("test", "c" + i);
    }
    try (Closeable scope = MetricsEnvironment.scopedMetricsContainer(container)) {
      for (int round = 0; round < 10; round++) {
        for (int i = 0; i < counters.length; i++) {
          counters[i].inc(i + 1);
        }
      }
    }
    MetricsContainerStepMap values = new MetricsContainerStepMap();
    values.update("step", container);
    for (int i = 0; i < counters.length; i++) {
      // A name equal to the counter's but another object: found by value, the same cell.
      long count = values.getContainer("step").getCounter(MetricName.named("test", "c" + i)).getCumulative();
      assertThat("c" + i, count, equalTo(10L * (i + 1)));
    }
  }

  @Test
  void twoCountersOfOneNameCountTogether() throws Exception {
    StepMetricsContainer container = new StepMetricsContainer("step");
    Counter first = Metrics.counter("test", "same");
    Counter second = Metrics.counter("test", "same");
    try (Closeable scope = MetricsEnvironment.scopedMetricsContainer(container)) {
      first.inc(2);
      second.inc(5);
      first.inc();
    }
    assertThat(container.getCounter(MetricName.named("test", "same")).getCumulative(), equalTo(8L));
  }
}
