package dev.weir.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;

/**
 * {@code POST}s every push as one JSON document ({@link JsonMetrics}) to
 * {@code --metricsHttpSinkUrl}. Any 2xx answer is success; anything else, or no answer within
 * the timeouts, is an error the pusher logs.
 */
public final class HttpJsonMetricsSink implements MetricsSink {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final URI url;
  private final HttpClient client;

  public HttpJsonMetricsSink(MetricsOptions options) {
    String value = options.getMetricsHttpSinkUrl();
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("HttpJsonMetricsSink needs --metricsHttpSinkUrl");
    }
    this.url = URI.create(value);
    this.client = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  }

  @Override
  public void writeMetrics(MetricQueryResults results) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JsonMetrics.body(results), StandardCharsets.UTF_8))
            .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("POST " + url + " answered " + response.statusCode() + ": " + response.body());
    }
  }
}
