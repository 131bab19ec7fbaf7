package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.empty;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes away for 10 s while {@link KafkaCountsPipeline} reads it, then comes back on
 * the same address with its data: the pipeline waits (it stays {@code RUNNING}, KafkaIO's
 * consumers log that the broker is unavailable), then reads on, and every record is counted once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KafkaBrokerOutageTest {
  private static final String TOPIC = "events";
  private static final List<Integer> PARTITIONS = List.of(0, 1, 2, 3);
  private static final int RECORDS = 4_000;
  private static final int PER_SECOND = 2_000;
  private static final Duration OUTAGE = Duration.ofSeconds(10);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  @Test
  void thePipelineWaitsOutABrokerOutageAndLosesNothing() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic(TOPIC, 4);
      Path output = tmp.resolve("counts");
      List<PacedProducer.Sent> sent = new ArrayList<>();
      try (KafkaCountsPipeline.Running run = KafkaCountsPipeline.start(broker.bootstrapServers(), TOPIC, "outage", output)) {
        Poll.until("the pipeline's first epoch", Duration.ofMinutes(1), () -> run.result().epochs() >= 1, run::failure);
        try (PacedProducer before = new PacedProducer(broker.bootstrapServers(), TOPIC, PARTITIONS)) {
          before.start(0, RECORDS, PER_SECOND);
          before.awaitSent(Duration.ofMinutes(1));
          sent.addAll(before.sent());
        }
        // Producers send nothing while the broker is away: a record's create time is set when it
        // is sent, and one stuck in a producer for longer than maxDelay would be late.
        long epochsBefore;
        try (LogCapture log = new LogCapture()) {
          broker.stop();
          epochsBefore = run.result().epochs();
          assertThat("state after an outage of " + OUTAGE,
              run.result().waitUntilFinish(org.joda.time.Duration.millis(OUTAGE.toMillis())), equalTo(PipelineResult.State.RUNNING));
          assertThat("epochs during the outage", run.result().epochs(), greaterThan(epochsBefore));
          assertThat("warnings that the broker is unavailable", log.containing("could not be established"), not(empty()));
          broker.start();
        }
        try (PacedProducer after = new PacedProducer(broker.bootstrapServers(), TOPIC, PARTITIONS)) {
          after.start(RECORDS, RECORDS, PER_SECOND);
          after.awaitSent(Duration.ofMinutes(1));
          after.endEachPartition(KafkaCountsPipeline.WINDOW_MILLIS, KafkaCountsPipeline.MAX_DELAY_MILLIS);
          sent.addAll(after.sent());
        }
        WindowCounts.await(output, WindowCounts.dataWindows(sent), Duration.ofMinutes(1), run::failure);
        run.awaitRead(sent.size(), Duration.ofMinutes(1));
        run.result().drain();
        assertThat(run.result().waitUntilFinish(org.joda.time.Duration.standardMinutes(1)), equalTo(PipelineResult.State.DONE));
        WindowCounts.assertCounts(output, sent);
      }
    }
  }
}
