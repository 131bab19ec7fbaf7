package dev.weir.metrics;

import java.util.List;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsRegistrar;

/** Makes {@code --metricsPushgatewayUrl} and {@code --metricsPushgatewayJob} known to Beam. */
public final class MetricsPusherRegistrar implements PipelineOptionsRegistrar {
  @Override
  public Iterable<Class<? extends PipelineOptions>> getPipelineOptions() {
    return List.of(PushgatewayOptions.class);
  }
}
