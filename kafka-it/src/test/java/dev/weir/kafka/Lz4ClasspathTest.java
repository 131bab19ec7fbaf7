package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;

import dev.weir.runner.WeirPipelineOptions;
import dev.weir.runner.WeirRunner;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's client and Spark share one lz4-java on a user's classpath: Spark's (at.yawk.lz4), with
 * the copy kafka-clients declares excluded. Two copies of {@code net.jpountz.lz4} shadow each
 * other, and an older one breaks Spark's shuffle (it calls {@code LZ4BlockInputStream.newBuilder}).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class Lz4ClasspathTest {
  /** Kafka's record batch: attributes follow offset, length, leader epoch, magic and CRC. */
  private static final int ATTRIBUTES_OFFSET = 8 + 4 + 4 + 1 + 4;
  private static final int LZ4 = 3;

  @TempDir Path tmp;

  @Test
  void oneLz4OnTheClasspathWithTheApiSparkCalls() throws Exception {
    List<URL> copies = Collections.list(
        getClass().getClassLoader().getResources("net/jpountz/lz4/LZ4BlockInputStream.class"));
    assertThat("copies of net.jpountz.lz4: " + copies, copies, hasSize(1));
    Class.forName("net.jpountz.lz4.LZ4BlockInputStream").getMethod("newBuilder");
  }

  @Test
  void kafkaCompressesAndDecompressesWithLz4() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic("compressed", 1);
      List<ProducerRecord<String, String>> input = KafkaBrokerTest.records("compressed", 1, 0, 500);
      // One batch for all: compression happens per batch.
      broker.produce(input, Map.of(
          ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
          ProducerConfig.LINGER_MS_CONFIG, 100,
          ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20));

      // The broker keeps the producer's batches as they came (topic compression.type=producer).
      Path segment = broker.logDir().resolve("compressed-0/00000000000000000000.log");
      ByteBuffer firstBatch = ByteBuffer.wrap(Files.readAllBytes(segment));
      assertThat("codec of the stored batch", firstBatch.getShort(ATTRIBUTES_OFFSET) & 0x7, equalTo(LZ4));

      assertThat(
          KafkaBrokerTest.keyValuesRead(broker.readFromStart("compressed", 500)),
          containsInAnyOrder(KafkaBrokerTest.keyValues(input).toArray()));
    }
  }

  @Test
  void sparkShufflesWithLz4() throws Exception {
    WeirPipelineOptions options = PipelineOptionsFactory.fromArgs(
            "--sparkMaster=local[2]",
            "--sparkConf=spark.io.compression.codec=lz4,spark.sql.shuffle.partitions=4")
        .as(WeirPipelineOptions.class);
    options.setRunner(WeirRunner.class);
    options.setBlockOnRun(false); // waited for below, with a deadline
    Pipeline p = Pipeline.create(options);
    PCollection<KV<String, Long>> counts =
        p.apply(Create.of("a", "b", "a", "c", "a", "b")).apply(Count.perElement());
    PAssert.that(counts).containsInAnyOrder(List.of(KV.of("a", 3L), KV.of("b", 2L), KV.of("c", 1L)));

    PipelineResult result = p.run();
    PipelineResult.State state = result.waitUntilFinish(Duration.standardMinutes(3));
    if (state != PipelineResult.State.DONE) {
      result.cancel();
    }
    assertThat(state, equalTo(PipelineResult.State.DONE));
    long asserted = 0;
    for (MetricResult<Long> c : result.metrics()
        .queryMetrics(MetricsFilter.builder()
            .addNameFilter(MetricNameFilter.named(PAssert.class, PAssert.SUCCESS_COUNTER))
            .build())
        .getCounters()) {
      asserted += c.getAttempted();
    }
    assertThat("successful PAsserts", asserted, greaterThanOrEqualTo(1L));
  }
}
