package dev.weir.translation.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.HashMap;
import java.util.Map;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.junit.jupiter.api.Test;

/** Results in the middle of a run, when some metrics are attempted and not committed yet. */
class PipelineMetricsTest {
  private static final MetricName DONE = MetricName.named("test", "done");
  private static final MetricName RUNNING = MetricName.named("test", "running");

  @Test
  void aMetricNotCommittedYetHasNothingCommitted() {
    MetricsContainerStepMap attempted = new MetricsContainerStepMap();
    attempted.getContainer("step").getCounter(DONE).inc(3);
    attempted.getContainer("step").getCounter(RUNNING).inc(5);
    attempted.getContainer("step").getDistribution(RUNNING).update(7);
    MetricsContainerStepMap committed = new MetricsContainerStepMap();
    committed.getContainer("step").getCounter(DONE).inc(3);

    MetricQueryResults results = PipelineMetrics.results(attempted, committed).queryMetrics(MetricsFilter.builder().build());
    Map<String, long[]> counters = new HashMap<>();
    for (MetricResult<Long> counter : results.getCounters()) {
      counters.put(counter.getName().getName(), new long[] {counter.getAttempted(), counter.getCommitted()});
    }
    assertThat(counters.get("done"), equalTo(new long[] {3, 3}));
    assertThat(counters.get("running"), equalTo(new long[] {5, 0}));
    MetricResult<DistributionResult> distribution = results.getDistributions().iterator().next();
    assertThat(distribution.getAttempted(), equalTo(DistributionResult.create(7, 1, 7, 7)));
    assertThat(distribution.getCommitted(), equalTo(DistributionResult.IDENTITY_ELEMENT));
  }
}
