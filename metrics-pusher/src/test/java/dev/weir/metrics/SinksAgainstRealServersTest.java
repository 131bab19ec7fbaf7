package dev.weir.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each sink against a real server of its kind on 127.0.0.1. */
class SinksAgainstRealServersTest {
  @TempDir static Path dir;
  private static MetricsServers servers;
  private static final MetricQueryResults SAMPLE = MetricsSnapshot.of(TestResults.sample());

  @BeforeAll
  static void startServers() throws Exception {
    servers = MetricsServers.start(dir.resolve("servers"));
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (servers != null) {
      servers.close();
    }
  }

  @Test
  void httpSinkPostsTheJsonBodyAndTreatsErrorsAsErrors() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/ok", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.createContext("/broken", exchange -> {
      exchange.sendResponseHeaders(500, -1);
      exchange.close();
    });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      new HttpJsonMetricsSink(options("--metricsHttpSinkUrl=" + base + "/ok")).writeMetrics(SAMPLE);
      assertThat(bodies, equalTo(List.of(JsonMetrics.body(SAMPLE))));
      IOException e = assertThrows(IOException.class,
          () -> new HttpJsonMetricsSink(options("--metricsHttpSinkUrl=" + base + "/broken")).writeMetrics(SAMPLE));
      assertThat(e.getMessage(), containsString("answered 500"));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void graphiteSinkValuesLandInCarbonUnderEscapedPaths() throws Exception {
    Instant now = Instant.now();
    MetricsOptions options = options(
        "--metricsGraphiteHost=" + servers.carbonHost(), "--metricsGraphitePort=" + servers.carbonPort());
    new GraphiteMetricsSink(options, Clock.fixed(now, ZoneOffset.UTC)).writeMetrics(SAMPLE);
    long second = now.getEpochSecond();
    Duration wait = Duration.ofSeconds(20);
    assertThat(servers.whisperValue("beam.counter.Count_ParMultiDo_Count_.my_ns.elements.attempted", second, wait), is(7.0));
    assertThat(servers.whisperValue("beam.counter.Count_ParMultiDo_Count_.my_ns.elements.committed", second, wait), is(5.0));
    assertThat(servers.whisperValue("beam.distribution.Stats.ns.sizes.attempted.max", second, wait), is(7.0));
    assertThat(
        servers.whisperValue("beam.counter.evil_step_beam_x_1_2.ns_with_slashes.a__quoted__name.attempted", second, wait),
        is(1.0));
    // The newline in the step name did not start a line of its own.
    assertThat(Files.exists(dir.resolve("servers/carbon/whisper/beam/x.wsp")), is(false));
  }

  @Test
  void pushgatewaySinkReplacesTheJobGroup() throws Exception {
    MetricsOptions options = options("--metricsPushgatewayUrl=" + servers.pushgatewayUrl(), "--metricsPushgatewayJob=weir-test");
    String counter = "beam_counter{instance=\"\",job=\"weir-test\",kind=\"%s\",name=\"elements\",namespace=\"my.ns\","
        + "step=\"Count/ParMultiDo(Count)\"} %d\n";
    String distributionMax = "beam_distribution_max{instance=\"\",job=\"weir-test\",kind=\"committed\",name=\"sizes\","
        + "namespace=\"ns\",step=\"Stats\"} 7\n";
    new PushgatewayMetricsSink(options).writeMetrics(SAMPLE);
    // The Pushgateway answers a PUT once it has applied it, so a read after it sees it.
    String first = pushgatewayGroup("weir-test");
    assertThat(first, containsString(String.format(counter, "attempted", 7)));
    assertThat(first, containsString(String.format(counter, "committed", 5)));
    assertThat(first, containsString(distributionMax));

    // A later push with other values and without the distribution: the whole group is replaced,
    // not merged into (a POST would keep the distribution).
    new PushgatewayMetricsSink(options).writeMetrics(MetricQueryResults.create(
        List.of(TestResults.result("Count/ParMultiDo(Count)", "my.ns", "elements", 6L, 8L)),
        List.of(), List.of(), List.of(), List.of(), List.of()));
    String second = pushgatewayGroup("weir-test");
    assertThat(second, containsString(String.format(counter, "attempted", 8)));
    assertThat(second, containsString(String.format(counter, "committed", 6)));
    assertThat(second, not(containsString(String.format(counter, "attempted", 7))));
    assertThat(second, not(containsString("beam_distribution")));
  }

  /** The samples of one job's group, each line ending in a newline: the rest is the Pushgateway's own metrics. */
  private static String pushgatewayGroup(String job) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response = client.send(
        HttpRequest.newBuilder(URI.create(servers.pushgatewayUrl() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode(), equalTo(200));
    return response.body().lines()
        .filter(line -> !line.startsWith("#") && line.contains("job=\"" + job + "\""))
        .map(line -> line + "\n")
        .collect(Collectors.joining());
  }

  private static MetricsOptions options(String... args) {
    return PipelineOptionsFactory.fromArgs(args).as(MetricsOptions.class);
  }
}
