package dev.weir.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic of 4 partitions of which one receives nothing, read with {@code --sourceSplits=4} (one
 * split per partition). KafkaIO's watermark of a partition that never had a record stays at the
 * start of time, so that split holds the source's watermark back, unless it counts as idle
 * ({@code --idleTimeoutMillis}): then the other partitions' windows fire while the pipeline runs.
 * Without idleness nothing fires until a drain.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaIdlePartitionTest {
  private static final String TOPIC = "events";
  private static final List<Integer> FED = List.of(0, 1, 2);
  private static final int RECORDS = 6_000;
  private static final int PER_SECOND = 1_500;
  /**
   * Shorter than KafkaIO's maxDelay plus a window: a split that counted as idle as soon as it
   * read nothing would stop the source's watermark before the last windows of the data.
   */
  private static final long IDLE_TIMEOUT_MILLIS = 1_000;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  @Test
  void withIdlenessTheOtherPartitionsWindowsFireWhileThePipelineRuns() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic(TOPIC, 4);
      Path output = tmp.resolve("counts");
      try (KafkaCountsPipeline.Running run = KafkaCountsPipeline.start(
              broker.bootstrapServers(), TOPIC, "idle", output, "--sourceSplits=4", "--idleTimeoutMillis=" + IDLE_TIMEOUT_MILLIS);
          PacedProducer producer = new PacedProducer(broker.bootstrapServers(), TOPIC, FED)) {
        Poll.until("the pipeline's first epoch", Duration.ofMinutes(1), () -> run.result().epochs() >= 1, run::failure);
        producer.start(0, RECORDS, PER_SECOND);
        producer.awaitSent(Duration.ofMinutes(1));
        List<PacedProducer.Sent> data = producer.sent();

        // Before any drain, and with no record after the data: every window of the data is
        // written. The fed partitions' readers have caught up, so KafkaIO moves their watermarks
        // on with the clock (less maxDelay): past the last window within about 3 s.
        try {
          WindowCounts.await(output, WindowCounts.dataWindows(data), Duration.ofSeconds(30), run::failure);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; watermarks " + run.result().watermarks(), e);
        }
        assertThat(run.result().getState(), equalTo(PipelineResult.State.RUNNING));
        producer.endEachPartition(KafkaCountsPipeline.WINDOW_MILLIS, KafkaCountsPipeline.MAX_DELAY_MILLIS);
        List<PacedProducer.Sent> sent = producer.sent();
        run.awaitRead(sent.size(), Duration.ofMinutes(1));
        run.result().drain();
        assertThat(run.result().waitUntilFinish(org.joda.time.Duration.standardMinutes(1)), equalTo(PipelineResult.State.DONE));
        WindowCounts.assertCounts(output, sent);
      }
    }
  }

  @Test
  void withoutIdlenessTheEmptyPartitionHoldsEveryWindowUntilADrain() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
      broker.createTopic(TOPIC, 4);
      Path output = tmp.resolve("counts");
      try (KafkaCountsPipeline.Running run =
              KafkaCountsPipeline.start(broker.bootstrapServers(), TOPIC, "held", output, "--sourceSplits=4");
          PacedProducer producer = new PacedProducer(broker.bootstrapServers(), TOPIC, FED)) {
        Poll.until("the pipeline's first epoch", Duration.ofMinutes(1), () -> run.result().epochs() >= 1, run::failure);
        producer.start(0, RECORDS, PER_SECOND);
        producer.awaitSent(Duration.ofMinutes(1));
        producer.endEachPartition(KafkaCountsPipeline.WINDOW_MILLIS, KafkaCountsPipeline.MAX_DELAY_MILLIS);
        List<PacedProducer.Sent> sent = producer.sent();

        // Every record read, and five epochs more: the source's watermark has not moved.
        run.awaitRead(sent.size(), Duration.ofMinutes(1));
        long read = run.result().epochs();
        Poll.until("five more epochs", Duration.ofMinutes(1), () -> run.result().epochs() >= read + 5, run::failure);
        assertThat("windows written while the empty partition holds the watermark",
            WindowCounts.fileNames(output), empty());
        assertThat(run.result().watermarks().toString(), readWatermark(run.result()), equalTo(BoundedWindow.TIMESTAMP_MIN_VALUE));

        run.result().drain();
        assertThat(run.result().waitUntilFinish(org.joda.time.Duration.standardMinutes(1)), equalTo(PipelineResult.State.DONE));
        WindowCounts.assertCounts(output, sent);
      }
    }
  }

  /** The output watermark of the read (its first step, as WeirRunner names them). */
  private static org.joda.time.Instant readWatermark(dev.weir.runner.WeirPipelineResult result) {
    for (Map.Entry<String, dev.weir.translation.streaming.OperatorWatermarks> e : result.watermarks().entrySet()) {
      if (e.getKey().startsWith(KafkaCountsPipeline.READ_STEP)) {
        return e.getValue().output();
      }
    }
    throw new AssertionError("no step " + KafkaCountsPipeline.READ_STEP + " in " + result.watermarks());
  }
}
