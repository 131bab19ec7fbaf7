package dev.weir.nexmark.launcher;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
  @Test
  void bucketsAreTenMsToASecondThenTenPercent() {
    assertThat(LatencyHistogram.upperBound(-5), equalTo(0L));
    assertThat(LatencyHistogram.upperBound(0), equalTo(0L));
    assertThat(LatencyHistogram.upperBound(1), equalTo(10L));
    assertThat(LatencyHistogram.upperBound(10), equalTo(10L));
    assertThat(LatencyHistogram.upperBound(11), equalTo(20L));
    assertThat(LatencyHistogram.upperBound(1_000), equalTo(1_000L));
    assertThat(LatencyHistogram.upperBound(1_001), equalTo(1_100L));
    assertThat(LatencyHistogram.upperBound(10_000), equalTo(10_000L));
    assertThat(LatencyHistogram.upperBound(15_001), equalTo(16_000L));
  }

  /** Latencies 1 to 1,000 ms, one each: the median is 500 ms and the 99th percentile 990 ms. */
  @Test
  void percentilesOfAUniformSpread() {
    Map<String, Long> counters = new HashMap<>();
    for (long ms = 1; ms <= 1_000; ms++) {
      counters.merge(LatencyHistogram.counterName(ms), 1L, Long::sum);
    }
    LatencyHistogram h = LatencyHistogram.of(counters);
    assertThat(h.count(), equalTo(1_000L));
    assertThat(h.percentile(0.5), equalTo(500L));
    assertThat(h.percentile(0.99), equalTo(990L));
    assertThat(h.percentile(1.0), equalTo(1_000L));
  }

  /** Read back from the counters a runner reports, one per bucket; a tail of 2% moves the p99. */
  @Test
  void fromCountersTheTailDecidesTheP99() {
    Map<String, Long> counters = new HashMap<>();
    counters.put(LatencyHistogram.counterName(40), 98L);
    counters.put(LatencyHistogram.counterName(2_345), 2L);
    counters.put("unrelated", 7L);
    LatencyHistogram h = LatencyHistogram.of(counters);
    assertThat(h.count(), equalTo(100L));
    assertThat(h.percentile(0.5), equalTo(40L));
    assertThat(h.percentile(0.98), equalTo(40L));
    assertThat(h.percentile(0.99), equalTo(2_400L));
  }

  @Test
  void nothingCountedHasNoPercentile() {
    assertThat(new LatencyHistogram().percentile(0.99), equalTo(-1L));
    assertThrows(IllegalArgumentException.class, () -> new LatencyHistogram().percentile(0));
  }
}
