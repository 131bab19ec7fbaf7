package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records appended to a 4-partition topic while {@link KafkaCountsPipeline} reads it on WeirRunner
 * ({@code local[2]}) are each counted exactly once, in the window of their create time: with
 * KafkaIO's {@code UnboundedSource} reader (its default off Dataflow) and with its splittable
 * DoFn ({@code --experiments=use_sdf_read}).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KafkaExactlyOnceTest {
  private static final String TOPIC = "events";
  private static final int RECORDS = 20_000;
  private static final int PER_SECOND = 2_500;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ReadFromKafkaViaUnbounded", "ReadFromKafkaViaSDF"})
  void everyRecordAppendedWhileThePipelineRunsIsCountedOnce(String expansion) throws Exception {
    // KafkaIO picks its UnboundedSource off Dataflow unless told otherwise.
    String[] args = expansion.equals("ReadFromKafkaViaSDF") ? new String[] {"--experiments=use_sdf_read"} : new String[0];
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic(TOPIC, 4);
      Path output = tmp.resolve("counts");
      try (KafkaCountsPipeline.Running run =
              KafkaCountsPipeline.start(broker.bootstrapServers(), TOPIC, "counts", output, args);
          PacedProducer producer = new PacedProducer(broker.bootstrapServers(), TOPIC, List.of(0, 1, 2, 3))) {
        Poll.until("the pipeline's first epoch", Duration.ofMinutes(1), () -> run.result().epochs() >= 1, run::failure);
        assertThat("the read's expansion", run.result().watermarks().keySet().stream()
            .anyMatch(step -> step.startsWith(KafkaCountsPipeline.READ_STEP + "/KafkaIO.Read/KafkaIO.Read." + expansion + "/")), equalTo(true));
        producer.start(0, RECORDS, PER_SECOND);
        producer.awaitSent(Duration.ofMinutes(1));
        producer.endEachPartition(KafkaCountsPipeline.WINDOW_MILLIS, KafkaCountsPipeline.MAX_DELAY_MILLIS);
        List<PacedProducer.Sent> sent = producer.sent();
        assertThat(sent.size(), equalTo(RECORDS + 4));

        // Every window of the data fires while the pipeline runs (the end records' window is
        // an hour ahead, so nothing but a drain closes it).
        WindowCounts.await(output, WindowCounts.dataWindows(sent), Duration.ofMinutes(1), run::failure);
        run.awaitRead(sent.size(), Duration.ofMinutes(1));
        run.result().drain();
        assertThat(run.result().waitUntilFinish(org.joda.time.Duration.standardMinutes(1)), equalTo(PipelineResult.State.DONE));
        WindowCounts.assertCounts(output, sent);
      }
    }
  }
}
