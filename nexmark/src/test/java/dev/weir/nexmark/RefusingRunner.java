package dev.weir.nexmark;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;

/** A runner that refuses every pipeline before running it, as a runner refuses what it cannot run. */
public final class RefusingRunner extends PipelineRunner<PipelineResult> {
  public static RefusingRunner fromOptions(PipelineOptions options) {
    return new RefusingRunner();
  }

  @Override
  public PipelineResult run(Pipeline pipeline) {
    throw new UnsupportedOperationException("RefusingRunner runs no pipeline");
  }
}
