package dev.weir.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the exact bytes each sink sends for {@link TestResults#sample()}. */
class WireFormatsTest {

  @Test
  void jsonBody() {
    assertThat(JsonMetrics.body(MetricsSnapshot.of(TestResults.sample())), equalTo(
        "{\"counters\":[{\"name\":{\"namespace\":\"my.ns\",\"name\":\"elements\"},\"step\":\"Count/ParMultiDo(Count)\",\"attempted\":7,\"committed\":5},"
            + "{\"name\":{\"namespace\":\"ns/with/slashes\",\"name\":\"a \\\"quoted\\\" name\"},\"step\":\"evil step\\nbeam.x 1 2\",\"attempted\":1,\"committed\":1}],\"distributions\":[{\"name\":{\"namespace\":\"ns\",\"name\":\"sizes\"},\"step\":\"Stats\",\"attempted\":{\"count\":2,\"sum\":10,\"min\":3,\"max\":7,\"mean\":5.0},\"committed\":{\"count\":2,\"sum\":10,\"min\":3,\"max\":7,\"mean\":5.0}}],\"gauges\":[{\"name\":{\"namespace\":\"ns\",\"name\":\"latest\"},\"step\":\"Stats\",\"attempted\":{\"value\":9,\"timestamp\":\"1970-01-01T00:00:00.000Z\"},\"committed\":{\"value\":9,\"timestamp\":\"1970-01-01T00:00:00.000Z\"}}],\"stringSets\":[{\"name\":{\"namespace\":\"ns\",\"name\":\"words\"},\"step\":\"Stats\",\"attempted\":{\"values\":[\"a\",\"b\"]},\"committed\":{\"values\":[\"a\",\"b\"]}}],\"boundedTries\":[{\"name\":{\"namespace\":\"ns\",\"name\":\"paths\"},\"step\":\"Stats\",\"attempted\":{\"paths\":[[\"x\",\"y\"]]},\"committed\":{\"paths\":[[\"x\",\"y\"]]}}]}"));
  }

  @Test
  void graphiteLines() {
    assertThat(GraphiteLines.of(MetricsSnapshot.of(TestResults.sample()), 1767225600L), equalTo(List.of(
            "beam.counter.Count_ParMultiDo_Count_.my_ns.elements.attempted 7 1767225600",
            "beam.counter.Count_ParMultiDo_Count_.my_ns.elements.committed 5 1767225600",
            "beam.counter.evil_step_beam_x_1_2.ns_with_slashes.a__quoted__name.attempted 1 1767225600",
            "beam.counter.evil_step_beam_x_1_2.ns_with_slashes.a__quoted__name.committed 1 1767225600",
            "beam.distribution.Stats.ns.sizes.attempted.count 2 1767225600",
            "beam.distribution.Stats.ns.sizes.attempted.sum 10 1767225600",
            "beam.distribution.Stats.ns.sizes.attempted.min 3 1767225600",
            "beam.distribution.Stats.ns.sizes.attempted.max 7 1767225600",
            "beam.distribution.Stats.ns.sizes.attempted.mean 5.0 1767225600",
            "beam.distribution.Stats.ns.sizes.committed.count 2 1767225600",
            "beam.distribution.Stats.ns.sizes.committed.sum 10 1767225600",
            "beam.distribution.Stats.ns.sizes.committed.min 3 1767225600",
            "beam.distribution.Stats.ns.sizes.committed.max 7 1767225600",
            "beam.distribution.Stats.ns.sizes.committed.mean 5.0 1767225600",
            "beam.gauge.Stats.ns.latest.attempted 9 1767225600",
            "beam.gauge.Stats.ns.latest.committed 9 1767225600",
            "beam.stringset.Stats.ns.words.attempted.size 2 1767225600",
            "beam.stringset.Stats.ns.words.committed.size 2 1767225600",
            "beam.boundedtrie.Stats.ns.paths.attempted.size 1 1767225600",
            "beam.boundedtrie.Stats.ns.paths.committed.size 1 1767225600")));
  }

  @Test
  void pushgatewayText() {
    assertThat(PushgatewayText.of(MetricsSnapshot.of(TestResults.sample())), equalTo(
        "# TYPE beam_counter gauge\n"
            + "beam_counter{step=\"Count/ParMultiDo(Count)\",namespace=\"my.ns\",name=\"elements\",kind=\"attempted\"} 7\n"
            + "beam_counter{step=\"Count/ParMultiDo(Count)\",namespace=\"my.ns\",name=\"elements\",kind=\"committed\"} 5\n"
            + "beam_counter{step=\"evil step\\nbeam.x 1 2\",namespace=\"ns/with/slashes\",name=\"a \\\"quoted\\\" name\",kind=\"attempted\"} 1\n"
            + "beam_counter{step=\"evil step\\nbeam.x 1 2\",namespace=\"ns/with/slashes\",name=\"a \\\"quoted\\\" name\",kind=\"committed\"} 1\n"
            + "# TYPE beam_distribution_count gauge\n"
            + "beam_distribution_count{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"attempted\"} 2\n"
            + "beam_distribution_count{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"committed\"} 2\n"
            + "# TYPE beam_distribution_sum gauge\n"
            + "beam_distribution_sum{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"attempted\"} 10\n"
            + "beam_distribution_sum{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"committed\"} 10\n"
            + "# TYPE beam_distribution_min gauge\n"
            + "beam_distribution_min{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"attempted\"} 3\n"
            + "beam_distribution_min{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"committed\"} 3\n"
            + "# TYPE beam_distribution_max gauge\n"
            + "beam_distribution_max{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"attempted\"} 7\n"
            + "beam_distribution_max{step=\"Stats\",namespace=\"ns\",name=\"sizes\",kind=\"committed\"} 7\n"
            + "# TYPE beam_gauge gauge\n"
            + "beam_gauge{step=\"Stats\",namespace=\"ns\",name=\"latest\",kind=\"attempted\"} 9\n"
            + "beam_gauge{step=\"Stats\",namespace=\"ns\",name=\"latest\",kind=\"committed\"} 9\n"
            + "# TYPE beam_string_set_size gauge\n"
            + "beam_string_set_size{step=\"Stats\",namespace=\"ns\",name=\"words\",kind=\"attempted\"} 2\n"
            + "beam_string_set_size{step=\"Stats\",namespace=\"ns\",name=\"words\",kind=\"committed\"} 2\n"
            + "# TYPE beam_bounded_trie_size gauge\n"
            + "beam_bounded_trie_size{step=\"Stats\",namespace=\"ns\",name=\"paths\",kind=\"attempted\"} 1\n"
            + "beam_bounded_trie_size{step=\"Stats\",namespace=\"ns\",name=\"paths\",kind=\"committed\"} 1\n"
            ));
  }
}
