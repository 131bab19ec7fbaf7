package dev.weir.testing;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.testing.PAssert;

/**
 * A pipeline for tests whose {@link #run()} checks its {@link PAssert}s ({@link PAssertCounts}):
 * it waits for the pipeline to finish when it has any, and fails if one of them did not run.
 * Use it wherever a test would call {@code Pipeline.create}.
 */
public final class VerifiedPipeline extends Pipeline {
  private VerifiedPipeline(PipelineOptions options) {
    super(options);
  }

  public static VerifiedPipeline create(PipelineOptions options) {
    return new VerifiedPipeline(options);
  }

  @Override
  public PipelineResult run(PipelineOptions options) {
    PipelineResult result = super.run(options);
    if (PAssert.countAsserts(this) > 0) {
      // Assertions conclude only once their windows are complete: at the end of the pipeline.
      PipelineResult.State state = result.waitUntilFinish();
      if (state != PipelineResult.State.DONE) {
        throw new AssertionError("The pipeline ended " + state + ", so its PAsserts cannot have all run");
      }
      PAssertCounts.verify(this, result.metrics());
    }
    return result;
  }
}
