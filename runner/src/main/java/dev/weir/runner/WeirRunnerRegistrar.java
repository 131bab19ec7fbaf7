package dev.weir.runner;

import java.util.List;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsRegistrar;
import org.apache.beam.sdk.runners.PipelineRunnerRegistrar;

/**
 * Makes {@code --runner=WeirRunner} and {@link WeirPipelineOptions} known to
 * {@code PipelineOptionsFactory} through {@link java.util.ServiceLoader}.
 */
public final class WeirRunnerRegistrar {
  private WeirRunnerRegistrar() {}

  /** Registers {@link WeirRunner}. */
  public static final class Runner implements PipelineRunnerRegistrar {
    @Override
    public Iterable<Class<? extends PipelineRunner<?>>> getPipelineRunners() {
      return List.of(WeirRunner.class);
    }
  }

  /** Registers {@link WeirPipelineOptions}. */
  public static final class Options implements PipelineOptionsRegistrar {
    @Override
    public Iterable<Class<? extends PipelineOptions>> getPipelineOptions() {
      return List.of(WeirPipelineOptions.class);
    }
  }
}
