package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;

import dev.weir.translation.TestSpark;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.range.OffsetRange;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class SplittableProcessTranslatorTest implements java.io.Serializable {
  static final AtomicInteger FINALIZED = new AtomicInteger();

  @Test
  void boundedSplittableDoFnResumesWithSideInputsAndFinalizesAtCheckpoints() {
    FINALIZED.set(0);
    Pipeline p = TestSpark.pipeline();
    PCollectionView<String> prefix = p.apply("Prefix", Create.of("n")).apply(View.asSingleton());
    PCollection<String> out =
        p.apply(Create.of(3, 2)).apply("Expand", ParDo.of(new CountUpTo(prefix)).withSideInputs(prefix));
    PAssert.that(out).containsInAnyOrder("n0", "n1", "n2", "n0", "n1");
    String plan = TestSpark.run(p).explain();
    assertThat(plan, containsString("-> SplittableProcessTranslator"));
    // Every resume is a checkpoint, which ends a bundle: its finalizers have run.
    assertThat(FINALIZED.get(), greaterThan(0));
  }

  /** Emits prefix+0 .. prefix+(n-1) for n, one position per call, resuming in between. */
  @DoFn.BoundedPerElement
  static final class CountUpTo extends DoFn<Integer, String> {
    private final PCollectionView<String> prefix;

    CountUpTo(PCollectionView<String> prefix) {
      this.prefix = prefix;
    }

    @GetInitialRestriction
    public OffsetRange initial(@Element Integer n) {
      return new OffsetRange(0, n);
    }

    @ProcessElement
    public ProcessContinuation process(
        ProcessContext c, RestrictionTracker<OffsetRange, Long> tracker, BundleFinalizer finalizer) {
      long position = tracker.currentRestriction().getFrom();
      if (!tracker.tryClaim(position)) {
        return ProcessContinuation.stop();
      }
      c.output(c.sideInput(prefix) + position);
      finalizer.afterBundleCommit(Instant.now().plus(Duration.standardMinutes(1)), FINALIZED::incrementAndGet);
      return ProcessContinuation.resume();
    }
  }
}
