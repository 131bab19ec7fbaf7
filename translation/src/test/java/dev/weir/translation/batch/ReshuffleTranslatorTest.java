package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.weir.translation.TestSpark;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Redistribute;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class ReshuffleTranslatorTest implements java.io.Serializable {
  @Test
  void reshuffleAndRedistributeKeepElementsAndTimestamps() {
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> in =
        p.apply(Create.timestamped(
            TimestampedValue.of(KV.of("a", 1), new Instant(3)), TimestampedValue.of(KV.of("b", 2), new Instant(4))));
    PCollection<KV<String, Integer>> reshuffled = in.apply("Reshuffle", Reshuffle.of());
    PCollection<KV<String, Integer>> byKey = in.apply("ByKey", Redistribute.byKey());
    PCollection<String> arbitrarily =
        p.apply("Words", Create.of("x", "y")).apply("Arbitrarily", Redistribute.arbitrarily());
    PAssert.that(reshuffled).containsInAnyOrder(KV.of("a", 1), KV.of("b", 2));
    PAssert.that(byKey).containsInAnyOrder(KV.of("a", 1), KV.of("b", 2));
    PAssert.that(arbitrarily).containsInAnyOrder("x", "y");
    String plan = TestSpark.run(p).explain();
    assertThat(plan, containsString("Reshuffle -> ReshuffleTranslator"));
    assertThat(plan, containsString("ByKey -> ReshuffleTranslator"));
    assertThat(plan, containsString("Arbitrarily -> ReshuffleTranslator"));
  }
}
