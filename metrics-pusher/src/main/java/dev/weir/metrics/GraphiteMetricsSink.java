package dev.weir.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;

/**
 * Sends every push as Graphite plaintext lines ({@link GraphiteLines}) over one TCP connection to
 * {@code --metricsGraphiteHost}:{@code --metricsGraphitePort}, with bounded connect and write
 * timeouts.
 */
public final class GraphiteMetricsSink implements MetricsSink {
  static final int TIMEOUT_MILLIS = 5_000;

  private final String host;
  private final int port;
  private final Clock clock;

  public GraphiteMetricsSink(MetricsOptions options) {
    this(options, Clock.systemUTC());
  }

  GraphiteMetricsSink(MetricsOptions options, Clock clock) {
    if (options.getMetricsGraphiteHost() == null || options.getMetricsGraphitePort() == null) {
      throw new IllegalArgumentException("GraphiteMetricsSink needs --metricsGraphiteHost and --metricsGraphitePort");
    }
    this.host = options.getMetricsGraphiteHost();
    this.port = options.getMetricsGraphitePort();
    this.clock = clock;
  }

  @Override
  public void writeMetrics(MetricQueryResults results) throws IOException {
    StringBuilder payload = new StringBuilder();
    for (String line : GraphiteLines.of(results, clock.instant().getEpochSecond())) {
      payload.append(line).append('\n');
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      OutputStream out = socket.getOutputStream();
      out.write(payload.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }
}
