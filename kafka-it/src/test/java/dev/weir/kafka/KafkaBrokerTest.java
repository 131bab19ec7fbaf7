package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.joda.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The broker fixture against Beam's KafkaIO on the DirectRunner, and across a restart. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaBrokerTest {
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
  void kafkaIoReadsExactlyTheProducedRecords() throws Exception {
    broker.createTopic("events", 4);
    List<ProducerRecord<String, String>> input = records("events", 4, 0, 1000);
    broker.produce(input);

    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    options.as(DirectOptions.class).setBlockOnRun(false); // waited for below, with a deadline
    Pipeline p = Pipeline.create(options);
    PCollection<KV<String, String>> read = p.apply(KafkaIO.<String, String>read()
        .withBootstrapServers(broker.bootstrapServers())
        .withTopic("events")
        .withKeyDeserializer(StringDeserializer.class)
        .withValueDeserializer(StringDeserializer.class)
        .withConsumerConfigUpdates(Map.<String, Object>of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))
        .withMaxNumRecords(1000)
        .withoutMetadata());
    PAssert.that(read).containsInAnyOrder(keyValues(input));

    PipelineResult result = p.run();
    PipelineResult.State state = result.waitUntilFinish(Duration.standardMinutes(3));
    if (state != PipelineResult.State.DONE) {
      result.cancel();
    }
    assertThat(state, equalTo(PipelineResult.State.DONE));
  }

  @Test
  void restartKeepsTheAddressAndTheData() throws Exception {
    broker.createTopic("kept", 2);
    List<ProducerRecord<String, String>> before = records("kept", 2, 0, 100);
    broker.produce(before);
    String address = broker.bootstrapServers();

    broker.stop();
    assertThat("nothing listens on " + address + " while stopped", listening(address), equalTo(false));
    broker.start();

    assertThat(broker.bootstrapServers(), equalTo(address));
    assertThat(broker.topics(), hasItem("kept"));
    assertThat(keyValuesRead(broker.readFromStart("kept", 100)), containsInAnyOrder(keyValues(before).toArray()));
    List<ProducerRecord<String, String>> after = records("kept", 2, 100, 10);
    broker.produce(after);
    List<KV<String, String>> all = new ArrayList<>(keyValues(before));
    all.addAll(keyValues(after));
    assertThat(keyValuesRead(broker.readFromStart("kept", 110)), containsInAnyOrder(all.toArray()));
  }

  @Test
  void aMissingTopicIsAnErrorNotCreated() throws Exception {
    ExecutionException e = assertThrows(
        ExecutionException.class,
        () -> broker.produce(
            records("missing", 1, 0, 1), Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000)));
    assertThat(e.getCause(), instanceOf(TimeoutException.class));
    assertThat(broker.topics(), not(hasItem("missing")));
  }

  /** {@code count} records numbered from {@code first}, spread over the partitions in turn. */
  static List<ProducerRecord<String, String>> records(String topic, int partitions, int first, int count) {
    return IntStream.range(first, first + count)
        .mapToObj(i -> new ProducerRecord<>(
            topic, i % partitions, String.format("key-%04d", i), String.format("value-%04d-%s", i, topic)))
        .collect(Collectors.toList());
  }

  static List<KV<String, String>> keyValues(List<ProducerRecord<String, String>> records) {
    return records.stream().map(r -> KV.of(r.key(), r.value())).collect(Collectors.toList());
  }

  static List<KV<String, String>> keyValuesRead(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> KV.of(r.key(), r.value())).collect(Collectors.toList());
  }

  private static boolean listening(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 2_000);
      return true;
    } catch (IOException refused) {
      return false;
    }
  }
}
