package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;

class WeirRunnerSmokeTest {
  @Test
  void countsPerElement() {
    Pipeline p = Pipelines.create();
    PCollection<KV<String, Long>> counts = p.apply(Create.of("a", "b", "a", "c", "a")).apply(Count.perElement());
    PAssert.that(counts).containsInAnyOrder(KV.of("a", 3L), KV.of("b", 1L), KV.of("c", 1L));
    PCollection<Integer> sum = p.apply("ints", Create.of(List.of(1, 2, 3, 4))).apply(Sum.integersGlobally());
    PAssert.thatSingleton(sum).isEqualTo(10);
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
  }
}
