package dev.weir.nexmark.queries;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import dev.weir.nexmark.TestPipelines;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.reference.ReferenceModels;
import java.util.Collection;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every query's output equals its reference model, on the DirectRunner and on WeirRunner. */
class QueriesTest {
  private static final int EVENTS = 10_000;

  /**
   * Batch and streaming (the unbounded source) on both runners; {@code -Dnexmark.query=N} runs
   * query N only, for a quicker look.
   */
  static Stream<Arguments> queriesAndRunners() {
    String only = System.getProperty("nexmark.query");
    return Queries.all().stream()
        .filter(q -> only == null || only.isEmpty() || Integer.parseInt(only) == q.number())
        .flatMap(q -> Stream.of(
            Arguments.of(q, "DirectRunner", false), Arguments.of(q, "WeirRunner", false),
            Arguments.of(q, "DirectRunner", true), Arguments.of(q, "WeirRunner", true)));
  }

  @ParameterizedTest(name = "query {0} on {1}, streaming {2}")
  @MethodSource("queriesAndRunners")
  void outputEqualsTheModel(NexmarkQuery<?> query, String runner, boolean streaming) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = EVENTS;
    config.numEventGenerators = 4;
    check(query, runner, streaming, config);
  }

  /**
   * With one event in ten arriving up to 3 s late (after later ones), windowed queries still
   * equal their models: the source's watermark waits for delayed events.
   */
  @ParameterizedTest(name = "query {0} on {1}, delayed events")
  @CsvSource({"5, DirectRunner", "5, WeirRunner", "8, DirectRunner", "8, WeirRunner", "11, WeirRunner"})
  void delayedEventsChangeNothing(int query, String runner) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = EVENTS;
    config.numEventGenerators = 4;
    config.probDelayedEvent = 0.1;
    config.occasionalDelaySec = 3;
    check(Queries.byNumber(query), runner, true, config);
  }

  /**
   * The queries whose state is of every kind Weir keeps (a stateful DoFn's cells and timers in 3,
   * sliding-window counts in 5, a join of windows in 8, sessions in 11, processing-time panes in
   * 12), streaming with keyed state in RocksDB instead of the heap.
   */
  @ParameterizedTest(name = "query {0} on WeirRunner, streaming, state in RocksDB")
  @ValueSource(ints = {3, 5, 8, 11, 12})
  void withStateInRocksDbOutputEqualsTheModel(int query) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = EVENTS;
    config.numEventGenerators = 4;
    check(Queries.byNumber(query), "WeirRunner", true, config, "--stateBackend=rocksdb");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static void check(NexmarkQuery<?> query, String runner, boolean streaming, NexmarkConfig config, String... options) {
    Collection expected = ReferenceModels.forQuery(query.number()).expected(NexmarkEvents.inMemory(config), config);
    assertThat("a query that outputs nothing proves little", expected.size(), greaterThan(0));
    Pipeline p = TestPipelines.create(runner, options);
    PCollection<Event> events =
        p.apply(streaming ? NexmarkEvents.unbounded(config) : NexmarkEvents.bounded(config));
    PCollection out = (PCollection) events.apply(query.name(), (PTransform) query.transform(config));
    out = ((NexmarkQuery) query).checked(out);
    PAssert.that(out).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }
}
