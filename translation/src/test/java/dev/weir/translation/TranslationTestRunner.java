package dev.weir.translation;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;

/**
 * A fake runner for translation tests: Beam needs a runner class to create a pipeline, and the
 * real one lives in a module that depends on this one. It runs the pipeline synchronously
 * through {@link TestSpark#run}.
 */
public final class TranslationTestRunner extends PipelineRunner<PipelineResult> {
  public static TranslationTestRunner fromOptions(PipelineOptions options) {
    return new TranslationTestRunner();
  }

  @Override
  public PipelineResult run(Pipeline pipeline) {
    TestSpark.run(pipeline);
    return new PipelineResult() {
      @Override
      public State getState() {
        return State.DONE;
      }

      @Override
      public State cancel() {
        return State.DONE;
      }

      @Override
      public State waitUntilFinish(Duration duration) {
        return State.DONE;
      }

      @Override
      public State waitUntilFinish() {
        return State.DONE;
      }

      @Override
      public MetricResults metrics() {
        throw new UnsupportedOperationException("translation tests collect no metrics");
      }
    };
  }
}
