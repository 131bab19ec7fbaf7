package dev.weir.translation.batch;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/** Keyed, timestamped input shared by the grouping tests: key "a" at 1, 4 and 12; "b" at 3. */
final class TestInputs {
  private TestInputs() {}

  static PCollection<KV<String, Integer>> keyed(Pipeline p) {
    return p.apply(
        Create.timestamped(
            TimestampedValue.of(KV.of("a", 1), new Instant(1)),
            TimestampedValue.of(KV.of("a", 2), new Instant(4)),
            TimestampedValue.of(KV.of("a", 3), new Instant(12)),
            TimestampedValue.of(KV.of("b", 4), new Instant(3))));
  }
}
