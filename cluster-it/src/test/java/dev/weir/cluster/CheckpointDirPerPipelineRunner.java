package dev.weir.cluster;

import dev.weir.runner.WeirPipelineOptions;
import dev.weir.runner.WeirRunner;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * WeirRunner with a {@code --checkpointDir} of its own for every pipeline this JVM runs:
 * {@code DIR/pipeline-1}, {@code DIR/pipeline-2}, ... for {@code --checkpointDir=DIR}. The
 * Nexmark launcher runs a warm-up and then every query in one JVM with the same options, and a
 * checkpoint dir belongs to one pipeline (another is refused; the same one resumes, so a query
 * after its own warm-up would resume from the warm-up's end). Streaming on a cluster needs a
 * checkpoint dir, so until the launcher gives each pipeline its own (see README.md) the cluster
 * tests run it with {@code --runner=dev.weir.cluster.CheckpointDirPerPipelineRunner}.
 */
public final class CheckpointDirPerPipelineRunner extends PipelineRunner<PipelineResult> {
  private static final AtomicInteger PIPELINES = new AtomicInteger();

  private final WeirPipelineOptions options;

  private CheckpointDirPerPipelineRunner(WeirPipelineOptions options) {
    this.options = options;
  }

  /** Called by Beam for {@code --runner=dev.weir.cluster.CheckpointDirPerPipelineRunner}. */
  public static CheckpointDirPerPipelineRunner fromOptions(PipelineOptions options) {
    WeirPipelineOptions weir = options.as(WeirPipelineOptions.class);
    if (weir.getCheckpointDir() == null) {
      throw new IllegalArgumentException("CheckpointDirPerPipelineRunner needs --checkpointDir");
    }
    return new CheckpointDirPerPipelineRunner(weir);
  }

  @Override
  public PipelineResult run(Pipeline pipeline) {
    options.setCheckpointDir(options.getCheckpointDir() + "/pipeline-" + PIPELINES.incrementAndGet());
    return WeirRunner.fromOptions(options).run(pipeline);
  }
}
