package dev.weir.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;

/**
 * {@code PUT}s every push ({@link PushgatewayText}) to a Prometheus Pushgateway as the group
 * {@code /metrics/job/<--metricsPushgatewayJob>}, replacing the previous push of the group.
 */
public final class PushgatewayMetricsSink implements MetricsSink {
  private final URI url;
  private final HttpClient client;

  public PushgatewayMetricsSink(MetricsOptions options) {
    PushgatewayOptions pushgateway = options.as(PushgatewayOptions.class);
    String base = pushgateway.getMetricsPushgatewayUrl();
    if (base == null || base.isEmpty()) {
      throw new IllegalArgumentException("PushgatewayMetricsSink needs --metricsPushgatewayUrl");
    }
    this.url = URI.create(base.replaceAll("/+$", "") + "/metrics/job/"
        + URLEncoder.encode(pushgateway.getMetricsPushgatewayJob(), StandardCharsets.UTF_8));
    this.client = HttpClient.newBuilder().connectTimeout(HttpJsonMetricsSink.CONNECT_TIMEOUT).build();
  }

  @Override
  public void writeMetrics(MetricQueryResults results) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(HttpJsonMetricsSink.REQUEST_TIMEOUT)
            .header("Content-Type", "text/plain; version=0.0.4")
            .PUT(HttpRequest.BodyPublishers.ofString(PushgatewayText.of(results), StandardCharsets.UTF_8))
            .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("PUT " + url + " answered " + response.statusCode() + ": " + response.body());
    }
  }
}
