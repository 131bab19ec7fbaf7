package dev.weir.nexmark.queries;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import dev.weir.nexmark.EventGroups;
import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import dev.weir.nexmark.TestPipelines;
import dev.weir.nexmark.model.BidsPerSession;
import dev.weir.nexmark.reference.Query12Model;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Query 12's processing-time panes, on a clock the test moves: groups of 100 events 3 s of
 * processing time apart, panes due 10 s after their first bid, so a bidder's bids spread over
 * several panes, and which bids fall in which pane follows from the clock alone.
 */
class Query12PanesTest {
  private static final long STEP_MS = 3_000;

  @ParameterizedTest(name = "on {0}")
  @ValueSource(strings = {"DirectRunner", "WeirRunner"})
  void bidsFallIntoThePanesOfTheClock(String runner) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 2_000;
    config.numEventGenerators = 1;
    EventGroups input = new EventGroups(NexmarkEvents.inMemory(config), 100);
    List<BidsPerSession> expected = Query12Model.panes(input.groups(), STEP_MS, config);
    long bidders = expected.stream().map(BidsPerSession::personId).distinct().count();
    long nonEmpty = expected.stream().filter(b -> b.bidsPerSession() > 0).count();
    assertThat("some bidder has several panes with bids", nonEmpty, greaterThan(bidders));

    Pipeline p = TestPipelines.create(runner);
    PCollection<BidsPerSession> out = p
        .apply(input.withClockSteps(STEP_MS, config.windowSizeSec * 1000L + STEP_MS))
        .apply(new Query12().transform(config));
    PAssert.that(out).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }
}
