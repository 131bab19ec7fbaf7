package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.weir.metrics.MetricsServers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.spark.TaskContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Beam metrics from executors to PipelineResult and through the pusher to real sinks. */
class MetricsEndToEndTest {
  private static final int ELEMENTS = 200;
  private static final String STEP = "Count/ParMultiDo(Counting)";
  /** A push period no test outlives: the only push is the one before waitUntilFinish returns. */
  private static final long NO_PERIODIC_PUSH = TimeUnit.DAYS.toSeconds(1);
  private static final Duration CARBON_WAIT = Duration.ofSeconds(30);

  private static Pipeline countingPipeline(boolean failFirstAttempt, String... args) {
    Pipeline p = Pipelines.create(args);
    p.apply(Create.of(IntStream.range(0, ELEMENTS).boxed().toList()))
        .apply(Reshuffle.viaRandomKey())
        .apply("Count", ParDo.of(new CountingFn(failFirstAttempt)));
    return p;
  }

  private static MetricResult<Long> counter(PipelineResult result) {
    return result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named("weir-test", "seen")).build())
        .getCounters()
        .iterator()
        .next();
  }

  private static boolean pusherAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("weir-metrics-pusher-"));
  }

  @Test
  void httpSinkBodiesCarryWhatPipelineResultReports() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    try {
      PipelineResult result = countingPipeline(false,
              "--metricsSink=dev.weir.metrics.HttpJsonMetricsSink",
              "--metricsHttpSinkUrl=http://127.0.0.1:" + server.getAddress().getPort() + "/",
              "--metricsPushPeriod=1")
          .run();
      assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
      assertThat(pusherAlive(), is(false));
      MetricResult<Long> reported = counter(result);
      assertThat(reported.getCommitted(), equalTo((long) ELEMENTS));
      assertThat(reported.getAttempted(), equalTo((long) ELEMENTS));
      // The pusher sends one push at a time and waits for the answer, and this server answers
      // one request at a time: the last body received is the final push, made after the last
      // task ended.
      assertThat(bodies, not(empty()));
      JsonNode last = new ObjectMapper().readTree(bodies.get(bodies.size() - 1));
      List<JsonNode> seen = new ArrayList<>();
      for (JsonNode c : last.get("counters")) {
        if (c.get("name").get("namespace").asText().equals("weir-test") && c.get("name").get("name").asText().equals("seen")) {
          seen.add(c);
        }
      }
      assertThat(seen, hasSize(1));
      assertThat(seen.get(0).get("step").asText(), equalTo(STEP));
      assertThat(seen.get(0).get("committed").asLong(), equalTo((long) ELEMENTS));
      assertThat(seen.get(0).get("attempted").asLong(), equalTo((long) ELEMENTS));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void graphiteSinkValuesLandInCarbonAndReadBackEqual(@TempDir Path dir) throws Exception {
    try (MetricsServers servers = MetricsServers.start(dir)) {
      long from = Instant.now().getEpochSecond();
      // Only the final push, so that what carbon holds is that push. With periodic pushes too,
      // whisper keeps one point per second per path, and carbon writes its cache to disk in its
      // own time: a read could find an earlier push's point on disk while the final push's later
      // point is still in carbon's memory, and nothing tells the two apart.
      PipelineResult result = countingPipeline(false,
              "--metricsSink=dev.weir.metrics.GraphiteMetricsSink",
              "--metricsGraphiteHost=" + servers.carbonHost(),
              "--metricsGraphitePort=" + servers.carbonPort(),
              "--metricsPushPeriod=" + NO_PERIODIC_PUSH)
          .run();
      assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
      long until = Instant.now().getEpochSecond();
      assertThat(pusherAlive(), is(false));
      String path = "beam.counter.Count_ParMultiDo_Counting_.weir-test.seen";
      // The one push was sent before waitUntilFinish returned; carbon takes a moment to store it.
      assertThat(servers.latestWhisperValue(path + ".committed", from, until, CARBON_WAIT), equalTo((double) ELEMENTS));
      assertThat(servers.latestWhisperValue(path + ".attempted", from, until, CARBON_WAIT), equalTo((double) ELEMENTS));
      assertThat(counter(result).getCommitted(), equalTo((long) ELEMENTS));
    }
  }

  @Test
  void pushgatewaySinkLeavesTheFinalValuesInItsGroup(@TempDir Path dir) throws Exception {
    try (MetricsServers servers = MetricsServers.start(dir)) {
      PipelineResult result = countingPipeline(false,
              "--metricsSink=dev.weir.metrics.PushgatewayMetricsSink",
              "--metricsPushgatewayUrl=" + servers.pushgatewayUrl(),
              "--metricsPushgatewayJob=weir-e2e",
              "--metricsPushPeriod=1")
          .run();
      assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
      assertThat(pusherAlive(), is(false));
      // Every push replaces the group and the Pushgateway answers a PUT once it has applied it;
      // pushes go one at a time. So the group now holds the final push, whatever came before.
      assertThat(seenInPushgateway(servers, "weir-e2e"), equalTo(Map.of(
          pushgatewayLabels("weir-e2e", "attempted"), (double) ELEMENTS,
          pushgatewayLabels("weir-e2e", "committed"), (double) ELEMENTS)));
    }
  }

  @Test
  void pushgatewaySinkKeepsCommittedApartFromAttemptedOfRetriedTasks(@TempDir Path dir) throws Exception {
    try (MetricsServers servers = MetricsServers.start(dir)) {
      // As in committedCountsOnlySuccessfulAttemptsAttemptedCountsAll: every task's first attempt
      // fails after counting some elements, so attempted and committed differ and a sink that
      // wrote one for the other would show.
      PipelineResult result = countingPipeline(true,
              "--sparkMaster=local[2,3]",
              "--metricsSink=dev.weir.metrics.PushgatewayMetricsSink",
              "--metricsPushgatewayUrl=" + servers.pushgatewayUrl(),
              "--metricsPushgatewayJob=weir-e2e",
              "--metricsPushPeriod=1")
          .run();
      assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
      Map<Map<String, String>, Double> seen = seenInPushgateway(servers, "weir-e2e");
      assertThat(seen.keySet(),
          equalTo(Set.of(pushgatewayLabels("weir-e2e", "attempted"), pushgatewayLabels("weir-e2e", "committed"))));
      // Each element is committed once, however often its task ran.
      assertThat(seen.get(pushgatewayLabels("weir-e2e", "committed")), equalTo((double) ELEMENTS));
      // Failed attempts count too: how many depends on Spark's partitioning, so the exact value
      // is the final one PipelineResult reports.
      double attempted = seen.get(pushgatewayLabels("weir-e2e", "attempted"));
      assertThat(attempted, greaterThan((double) ELEMENTS));
      assertThat(attempted, equalTo((double) counter(result).getAttempted()));
    }
  }

  /** The samples of counter weir-test/seen in a job's group, by their labels. */
  private static Map<Map<String, String>, Double> seenInPushgateway(MetricsServers servers, String job)
      throws IOException, InterruptedException {
    Map<Map<String, String>, Double> seen = new HashMap<>();
    for (PrometheusSample s : PrometheusSample.parse(get(URI.create(servers.pushgatewayUrl() + "/metrics")))) {
      if (s.name().equals("beam_counter") && job.equals(s.labels().get("job"))
          && "weir-test".equals(s.labels().get("namespace")) && "seen".equals(s.labels().get("name"))) {
        seen.put(s.labels(), s.value());
      }
    }
    return seen;
  }

  /** The labels PushgatewayMetricsSink writes, plus the group's, which the Pushgateway adds. */
  private static Map<String, String> pushgatewayLabels(String job, String kind) {
    return Map.of("job", job, "instance", "", "step", STEP, "namespace", "weir-test", "name", "seen", "kind", kind);
  }

  private static String get(URI uri) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response =
        client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat("GET " + uri, response.statusCode(), equalTo(200));
    return response.body();
  }

  /** One sample of the Prometheus text format: {@code name{label="value",...} value}. */
  record PrometheusSample(String name, Map<String, String> labels, double value) {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static List<PrometheusSample> parse(String text) {
      List<PrometheusSample> samples = new ArrayList<>();
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        Matcher m = SAMPLE.matcher(line);
        if (!m.matches()) {
          throw new IllegalArgumentException("not a Prometheus sample: " + line);
        }
        Map<String, String> labels = new HashMap<>();
        if (m.group(2) != null) {
          Matcher l = LABEL.matcher(m.group(2));
          while (l.find()) {
            labels.put(l.group(1), unescape(l.group(2)));
          }
        }
        samples.add(new PrometheusSample(m.group(1), labels, number(m.group(3))));
      }
      return samples;
    }

    /** Go's formatting of a float: Java's, except for the infinities. */
    private static double number(String value) {
      return switch (value) {
        case "+Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        default -> Double.parseDouble(value);
      };
    }

    private static String unescape(String value) {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c == '\\' && i + 1 < value.length()) {
          char next = value.charAt(++i);
          out.append(next == 'n' ? '\n' : next);
        } else {
          out.append(c);
        }
      }
      return out.toString();
    }
  }

  @Test
  void committedCountsOnlySuccessfulAttemptsAttemptedCountsAll() {
    PipelineResult clean = countingPipeline(false).run();
    // local[2,3]: two threads, a task may fail three times; each task fails its first attempt
    // after counting half its elements.
    PipelineResult retried = countingPipeline(true, "--sparkMaster=local[2,3]").run();
    assertThat(counter(clean).getCommitted(), equalTo((long) ELEMENTS));
    assertThat(counter(clean).getAttempted(), equalTo((long) ELEMENTS));
    assertThat(counter(retried).getCommitted(), equalTo(counter(clean).getCommitted()));
    assertThat(counter(retried).getAttempted(), greaterThan(counter(retried).getCommitted()));
  }

  static final class CountingFn extends DoFn<Integer, Integer> {
    private final Counter seen = Metrics.counter("weir-test", "seen");
    private final boolean failFirstAttempt;
    private transient int inBundle;

    CountingFn(boolean failFirstAttempt) {
      this.failFirstAttempt = failFirstAttempt;
    }

    @StartBundle
    public void start() {
      inBundle = 0;
    }

    @ProcessElement
    public void process(@Element Integer x, OutputReceiver<Integer> out) {
      seen.inc();
      inBundle++;
      TaskContext task = TaskContext.get();
      if (failFirstAttempt && task.attemptNumber() == 0 && inBundle >= 10) {
        throw new IllegalStateException("injected failure of attempt 0 of task " + task.taskAttemptId());
      }
      out.output(x);
    }

    @Override
    public String toString() {
      return "Counting";
    }
  }
}
