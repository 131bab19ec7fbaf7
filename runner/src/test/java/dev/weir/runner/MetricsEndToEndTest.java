package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.weir.metrics.MetricsServers;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
      MetricResult<Long> expected = counter(result);
      assertThat(expected.getCommitted(), equalTo((long) ELEMENTS));
      JsonNode last = new ObjectMapper().readTree(bodies.get(bodies.size() - 1));
      JsonNode seen = null;
      for (JsonNode c : last.get("counters")) {
        if (c.get("name").get("name").asText().equals("seen")) {
          seen = c;
        }
      }
      assertThat(seen.get("step").asText(), equalTo("Count/ParMultiDo(Counting)"));
      assertThat(seen.get("attempted").asLong(), equalTo(expected.getAttempted()));
      assertThat(seen.get("committed").asLong(), equalTo(expected.getCommitted()));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void graphiteSinkValuesLandInCarbonAndReadBackEqual(@TempDir Path dir) throws Exception {
    try (MetricsServers servers = MetricsServers.start(dir)) {
      long from = Instant.now().getEpochSecond();
      PipelineResult result = countingPipeline(false,
              "--metricsSink=dev.weir.metrics.GraphiteMetricsSink",
              "--metricsGraphiteHost=" + servers.carbonHost(),
              "--metricsGraphitePort=" + servers.carbonPort(),
              "--metricsPushPeriod=1")
          .run();
      result.waitUntilFinish();
      long until = Instant.now().getEpochSecond();
      MetricResult<Long> expected = counter(result);
      String path = "beam.counter.Count_ParMultiDo_Counting_.weir-test.seen";
      assertThat(servers.latestWhisperValue(path + ".committed", from, until, Duration.ofSeconds(20)),
          equalTo((double) expected.getCommitted()));
      assertThat(servers.latestWhisperValue(path + ".attempted", from, until, Duration.ofSeconds(20)),
          equalTo((double) expected.getAttempted()));
      assertThat(pusherAlive(), is(false));
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
