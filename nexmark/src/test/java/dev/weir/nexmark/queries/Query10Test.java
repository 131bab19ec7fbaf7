package dev.weir.nexmark.queries;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import dev.weir.nexmark.TestPipelines;
import dev.weir.nexmark.model.Done;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.reference.Query10Files;
import dev.weir.nexmark.reference.ReferenceModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Query 10's files, read back: every event logged exactly once, in the file of its window, shard
 * and pane ({@link Query10Files} says how they are named and what they hold). 3,000 events over
 * 30 s of event time, so three windows.
 */
class Query10Test {
  private static NexmarkConfig config(Path dir, long maxLogEvents) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 3_000;
    config.numEventGenerators = 1;
    config.firstEventRate = 100;
    config.nextEventRate = 100;
    config.outputPath = dir.toString();
    config.maxLogEvents = maxLogEvents;
    return config;
  }

  /** One pane per window and shard: the default maxLogEvents is more than a window's events. */
  @ParameterizedTest(name = "on {0}, streaming {1}")
  @CsvSource({"DirectRunner, false", "WeirRunner, false", "DirectRunner, true", "WeirRunner, true"})
  void everyEventIsLoggedOnceInTheFileOfItsWindowAndShard(String runner, boolean streaming, @TempDir Path dir)
      throws Exception {
    NexmarkConfig config = config(dir, 100_000);
    run(runner, streaming, config);
    assertThat(Query10Files.problems(dir, NexmarkEvents.inMemory(config), config), is(empty()));
    assertThat("files of every window and shard", logFiles(dir).size(), greaterThan(50));
  }

  /**
   * Panes after every 20 events of a window and shard: EARLY files of at least 20 events, then
   * the ON_TIME one. Beam fires them with the trigger honoured (on WeirRunner in batch, with
   * --windowTriggers=ALLOW).
   */
  @ParameterizedTest(name = "on {0}")
  @CsvSource({"DirectRunner", "WeirRunner"})
  void earlyPanesGetTheirOwnFiles(String runner, @TempDir Path dir) throws Exception {
    NexmarkConfig config = config(dir, 20);
    run(runner, false, config);
    assertThat(Query10Files.problems(dir, NexmarkEvents.inMemory(config), config), is(empty()));
    assertThat("some EARLY pane was written",
        logFiles(dir).stream().filter(f -> f.getFileName().toString().endsWith("-EARLY.txt")).count(), greaterThan(0L));
  }

  @SuppressWarnings("unchecked")
  private static void run(String runner, boolean streaming, NexmarkConfig config) {
    List<TimestampedValue<Event>> events = NexmarkEvents.inMemory(config);
    Collection<Done> done = (Collection<Done>) ReferenceModels.forQuery(10).expected(events, config);
    Pipeline p = TestPipelines.create(runner);
    PCollection<Event> input =
        p.apply(streaming ? NexmarkEvents.unbounded(config) : NexmarkEvents.bounded(config));
    PAssert.that(input.apply(new Query10().transform(config))).containsInAnyOrder(done);
    p.run().waitUntilFinish();
  }

  private static List<Path> logFiles(Path dir) throws Exception {
    try (Stream<Path> listed = Files.list(dir)) {
      return listed.filter(f -> f.getFileName().toString().startsWith("LOG-")).toList();
    }
  }
}
