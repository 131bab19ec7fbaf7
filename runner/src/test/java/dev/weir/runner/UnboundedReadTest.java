package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.weir.testing.VerifiedPipeline;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Unbounded reads from a source whose records are ready only at a rate ({@link PacedSource}, 4
 * splits): read whole, each split by one reader kept open across epochs, and a reader re-created
 * after a failed task reads nothing twice and skips nothing.
 */
class UnboundedReadTest {
  private static final long VALUES = 8_000;
  private static final double PER_SECOND = 4_000;
  /** Windows of 1,000 s: values are their own timestamps in seconds. */
  private static final long WINDOW = 1_000;

  /** Counts and sums per window, as the input makes them. */
  private static void assertCountsAndSums(Pipeline p, PacedSource source) {
    assertCountsAndSums(p, source, VALUES);
  }

  private static void assertCountsAndSums(Pipeline p, PacedSource source, long values) {
    PCollection<Long> read =
        p.apply(Read.from(source)).apply(Window.into(FixedWindows.of(Duration.standardSeconds(WINDOW))));
    List<Long> counts = new ArrayList<>();
    List<Long> sums = new ArrayList<>();
    for (long start = 0; start < values; start += WINDOW) {
      counts.add(WINDOW);
      sums.add((start + start + WINDOW - 1) * WINDOW / 2);
    }
    PAssert.that(read.apply(Combine.globally(Count.<Long>combineFn()).withoutDefaults())).containsInAnyOrder(counts);
    PAssert.that(read.apply(Sum.longsGlobally().withoutDefaults())).containsInAnyOrder(sums);
  }

  /**
   * Readers with nothing ready yet are polled again, not given up on for the epoch: the pipeline
   * reads everything at about the source's pace. Without that it stalls (each epoch reads what
   * happens to be ready when its reader starts); the timeout catches the stall, and the time
   * each runner took is printed for the record.
   */
  @ParameterizedTest(name = "on {0}")
  @ValueSource(strings = {"DirectRunner", "WeirRunner"})
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aPacedSourceIsReadWholeAtItsPace(String runner) {
    Pipeline p =
        runner.equals("WeirRunner")
            ? Pipelines.create()
            : VerifiedPipeline.create(PipelineOptionsFactory.fromArgs("--runner=DirectRunner").create());
    assertCountsAndSums(p, new PacedSource(UUID.randomUUID().toString(), VALUES, PER_SECOND, -1));
    long start = System.nanoTime();
    p.run();
    System.out.printf("paced source, %,d values at %,.0f/s: %s took %,d ms (the rate needs %,d ms)%n",
        VALUES, PER_SECOND, runner, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        (long) (VALUES * 1000 / PER_SECOND));
  }

  /**
   * 100 splits on {@code local[2]} (as Nexmark's source has), 40,000 values over 10 s, each split
   * ready only every 25 ms, so never quiet for long: the epoch's read time is one deadline for all
   * of them, not one per wave of two tasks. Were it per task, every epoch would take 50 waves of
   * 1 s and the reads some 50 s; the timeout catches that, and the time is printed beside what the
   * rate needs.
   */
  @Test
  @Timeout(value = 40, unit = TimeUnit.SECONDS)
  void manySplitsOnFewCoresAreReadAtTheirPace() {
    long values = 40_000;
    Pipeline p = Pipelines.create("--sparkMaster=local[2]");
    assertCountsAndSums(p, PacedSource.withSplits(UUID.randomUUID().toString(), values, PER_SECOND, 100), values);
    long start = System.nanoTime();
    p.run();
    System.out.printf("paced source, 100 splits, %,d values at %,.0f/s: WeirRunner took %,d ms (the rate needs %,d ms)%n",
        values, PER_SECOND, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), (long) (values * 1000 / PER_SECOND));
  }

  /** Every split keeps the reader it opened, epoch after epoch. */
  @Test
  void eachSplitKeepsOneReaderAcrossEpochs() {
    String id = UUID.randomUUID().toString();
    Pipeline p = Pipelines.create("--epochMaxRecords=200");
    assertCountsAndSums(p, new PacedSource(id, VALUES, PER_SECOND, -1));
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    // 2,000 values per split, at most 200 per epoch: ten epochs at least.
    assertThat(result.epochs(), greaterThan(9L));
    assertThat(PacedSource.readersCreated(id), equalTo(PacedSource.SPLITS));
  }

  /**
   * A task fails halfway through a split's epoch and Spark runs it again (local[2,3]: up to three
   * attempts): the split's reader, which had read part of the epoch, is closed, and a new one
   * starts from the split's last mark, so each value is counted once.
   */
  @Test
  void aReaderRecreatedAfterAFailedTaskReadsNothingTwice() {
    String id = UUID.randomUUID().toString();
    Pipeline p = Pipelines.create("--sparkMaster=local[2,3]", "--epochMaxRecords=200");
    assertCountsAndSums(p, new PacedSource(id, VALUES, PER_SECOND, 3_001));
    assertThat(p.run().getState(), equalTo(PipelineResult.State.DONE));
    assertThat(PacedSource.readersCreated(id), equalTo(PacedSource.SPLITS + 1));
  }
}
