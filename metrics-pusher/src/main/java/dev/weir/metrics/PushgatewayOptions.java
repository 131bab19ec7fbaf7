package dev.weir.metrics;

import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/** Where {@link PushgatewayMetricsSink} pushes. */
public interface PushgatewayOptions extends MetricsOptions {
  @Description("The Prometheus Pushgateway's base URL, e.g. http://127.0.0.1:9091")
  String getMetricsPushgatewayUrl();

  void setMetricsPushgatewayUrl(String value);

  @Description("The job label of the pushed group")
  @Default.String("beam")
  String getMetricsPushgatewayJob();

  void setMetricsPushgatewayJob(String value);
}
