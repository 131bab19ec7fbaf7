package dev.weir.runner;

import dev.weir.testing.VerifiedPipeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.PeriodicImpulse;
import org.apache.beam.sdk.transforms.Watch;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Splittable DoFns that are unbounded per element, in streaming: each element's restriction is
 * worked on over many epochs, checkpointed and resumed, and its watermark estimator holds the
 * output watermark until the restriction is done.
 */
class StreamingSplittableTest {
  private static Pipeline pipeline(String runner, String... args) {
    if (runner.equals("WeirRunner")) {
      return Pipelines.create(args);
    }
    return VerifiedPipeline.create(PipelineOptionsFactory.fromArgs("--runner=DirectRunner").create());
  }

  /**
   * Impulses every 200 ms over 2 s, both ends included, starting 8 s after the pipeline is built
   * (after Spark has started, so while the pipeline runs: impulses all in the past would come out
   * of the first call): the restriction is resumed epoch after epoch, then the pipeline ends.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void periodicImpulseFiresOnItsScheduleAndEnds() {
    Pipeline p = Pipelines.create("--runtimeMode=STREAMING");
    Instant start = Instant.now().plus(Duration.standardSeconds(8));
    Duration interval = Duration.millis(200);
    Instant stop = start.plus(Duration.standardSeconds(2));
    // PeriodicImpulse emits at start, start + interval, ... up to stop included.
    long expected = (stop.getMillis() - start.getMillis()) / interval.getMillis() + 1;
    PAssert.thatSingleton(
            p.apply(PeriodicImpulse.create().startAt(start).stopAt(stop).withInterval(interval))
                .apply(Window.<Instant>configure().triggering(AfterWatermark.pastEndOfWindow())
                    .withAllowedLateness(Duration.ZERO).discardingFiredPanes())
                .apply(Combine.globally(Count.<Instant>combineFn())))
        .isEqualTo(expected);
    p.run();
  }

  /**
   * A directory watched for new files while the pipeline runs: every line of the files added
   * during the run is read once, on both runners; the watch ends 3 s after its last new file.
   */
  @ParameterizedTest(name = "on {0}")
  @ValueSource(strings = {"DirectRunner", "WeirRunner"})
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void watchForNewFilesReadsTheFilesAddedWhileItRuns(String runner, @TempDir Path dir) throws Exception {
    Pipeline p = pipeline(runner, "--runtimeMode=STREAMING");
    int files = 4;
    int linesPerFile = 25;
    PAssert.thatSingleton(
            p.apply(
                    TextIO.read()
                        .from(dir.resolve("*.txt").toString())
                        .watchForNewFiles(Duration.millis(100), Watch.Growth.afterTimeSinceNewOutput(Duration.standardSeconds(3))))
                // One pane, once the watch has ended: counts that are complete.
                .apply(Window.<String>configure().triggering(AfterWatermark.pastEndOfWindow())
                    .withAllowedLateness(Duration.ZERO).discardingFiredPanes())
                .apply(Combine.globally(Count.<String>combineFn())))
        .isEqualTo((long) files * linesPerFile);
    Thread writer = new Thread(() -> {
      try {
        for (int f = 0; f < files; f++) {
          // Paces the files, one every 300 ms, so that they arrive while the pipeline runs.
          Thread.sleep(300);
          StringBuilder text = new StringBuilder();
          for (int line = 0; line < linesPerFile; line++) {
            text.append("file ").append(f).append(" line ").append(line).append('\n');
          }
          Path tmp = dir.resolve(".file-" + f);
          Files.writeString(tmp, text, StandardCharsets.UTF_8);
          Files.move(tmp, dir.resolve("file-" + f + ".txt"));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "file-writer");
    writer.start();
    try {
      p.run();
    } finally {
      writer.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
