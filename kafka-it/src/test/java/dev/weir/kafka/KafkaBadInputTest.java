package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.joda.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to {@code KafkaIO.read()} on WeirRunner ends in an error that names the read step,
 * never in a silent stall: a topic that does not exist; a broker nobody listens on (the consumer
 * logs warnings while it retries, then its {@code default.api.timeout.ms} ends the wait: 60 s by
 * default, 5 s here, as a user who wants to know sooner sets it); a record the value deserializer
 * rejects. The tests share one broker, each with a topic of its own.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaBadInputTest {
  /** Long enough for every case; a pipeline still running then has stalled. */
  private static final Duration DEADLINE = Duration.standardMinutes(2);

  @TempDir static Path tmp;
  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBroker.start(tmp.resolve("kafka"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aMissingTopicFailsNamingTheStep() throws Exception {
    Pipeline p = Pipeline.create(KafkaCountsPipeline.options());
    p.apply(KafkaCountsPipeline.READ_STEP,
        KafkaCountsPipeline.read(broker.bootstrapServers(), "missing", "bad-input", Map.of()).withoutMetadata());

    RuntimeException e = failure(p);
    assertThat(e.getMessage(), containsString("Step '" + KafkaCountsPipeline.READ_STEP));
    assertThat(causes(e), hasItem(containsString("make sure that provided topics exist")));
  }

  @Test
  void anUnreachableBrokerIsWarnedAboutThenFailsNamingTheStep() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    Pipeline p = Pipeline.create(KafkaCountsPipeline.options());
    p.apply(KafkaCountsPipeline.READ_STEP, KafkaCountsPipeline.read(
            "127.0.0.1:" + closedPort, "events", "bad-input",
            Map.of(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000))
        .withoutMetadata());

    try (LogCapture log = new LogCapture()) {
      RuntimeException e = failure(p);
      assertThat(e.getMessage(), containsString("Step '" + KafkaCountsPipeline.READ_STEP));
      assertThat(causes(e), hasItem(containsString("Timeout expired while fetching topic metadata")));
      assertThat(log.containing("127.0.0.1:" + closedPort + ") could not be established"), not(empty()));
    }
  }

  @Test
  void anUndeserializableRecordFailsNamingTheStep() throws Exception {
    broker.createTopic("ints", 4);
    List<ProducerRecord<String, String>> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      records.add(new ProducerRecord<>("ints", i % 4, "k" + i, String.format("%04d", i))); // 4 bytes: an int
    }
    records.add(new ProducerRecord<>("ints", 2, "bad", "bad")); // 3 bytes
    broker.produce(records);
    Pipeline p = Pipeline.create(KafkaCountsPipeline.options());
    p.apply(KafkaCountsPipeline.READ_STEP, KafkaIO.<String, Integer>read()
        .withBootstrapServers(broker.bootstrapServers())
        .withTopic("ints")
        .withKeyDeserializer(StringDeserializer.class)
        .withValueDeserializer(IntegerDeserializer.class)
        .withConsumerConfigUpdates(Map.of(
            ConsumerConfig.GROUP_ID_CONFIG, "bad-input", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))
        .commitOffsetsInFinalize()
        .withoutMetadata());

    RuntimeException e = failure(p);
    assertThat(e.getMessage(), containsString("Step '" + KafkaCountsPipeline.READ_STEP));
    assertThat(e.getMessage(), containsString("Size of data received by IntegerDeserializer is not 4"));
  }

  /** Runs the pipeline and returns the error it ends with; fails if it ends otherwise or stalls. */
  private static RuntimeException failure(Pipeline p) throws Exception {
    PipelineResult result = p.run();
    PipelineResult.State state;
    try {
      state = result.waitUntilFinish(DEADLINE);
    } catch (RuntimeException e) {
      return e;
    }
    if (state == PipelineResult.State.RUNNING) {
      result.cancel();
      throw new AssertionError("still running without an error after " + DEADLINE + ": a silent stall");
    }
    throw new AssertionError("ended " + state + " without an error");
  }

  private static List<String> causes(Throwable e) {
    List<String> causes = new ArrayList<>();
    for (Throwable c = e; c != null; c = c.getCause()) {
      causes.add(c.toString());
    }
    return causes;
  }
}
