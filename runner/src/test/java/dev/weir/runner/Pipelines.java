package dev.weir.runner;

import dev.weir.testing.VerifiedPipeline;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Pipelines on WeirRunner for tests, on embedded Spark bound to 127.0.0.1; each checks, when it
 * has run, that its PAsserts all ran ({@link VerifiedPipeline}).
 */
final class Pipelines {
  private Pipelines() {}

  static WeirPipelineOptions options(String... args) {
    WeirPipelineOptions options = PipelineOptionsFactory.fromArgs(args).as(WeirPipelineOptions.class);
    options.setRunner(WeirRunner.class);
    if (java.util.Arrays.stream(args).noneMatch(a -> a.startsWith("--sparkMaster="))) {
      options.setSparkMaster("local[2]");
    }
    return options;
  }

  static Pipeline create(String... args) {
    return VerifiedPipeline.create(options(args));
  }
}
