package dev.weir.nexmark.queries;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;

import dev.weir.nexmark.EventGroups;
import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import dev.weir.nexmark.TestPipelines;
import dev.weir.nexmark.model.NameCityStateId;
import dev.weir.nexmark.reference.Query3Model;
import dev.weir.nexmark.reference.ReferenceModels;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Query 3 forgets a seller {@code maxAuctionsWaitingTime} after the seller's latest event, once
 * the watermark has passed that time. Here the events (200 s of them, at 100 a second) arrive in
 * groups of 10 s with the watermark moved after each, and sellers are forgotten after 10 s, so
 * auctions that come later than that after their seller's last event find nobody.
 */
class Query3ExpiryTest {
  private static NexmarkConfig config() {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 20_000;
    config.numEventGenerators = 1;
    config.firstEventRate = 100;
    config.nextEventRate = 100;
    config.maxAuctionsWaitingTime = 10;
    return config;
  }

  @ParameterizedTest(name = "on {0}")
  @ValueSource(strings = {"DirectRunner", "WeirRunner"})
  void sellersAreForgottenOnceTheWatermarkPassesTheirExpiry(String runner) {
    NexmarkConfig config = config();
    EventGroups input = new EventGroups(NexmarkEvents.inMemory(config), 1_000);
    List<NameCityStateId> expected = Query3Model.expected(input.groups(), input.watermarksMs(), config);
    Collection<?> withoutExpiry = ReferenceModels.forQuery(3).expected(NexmarkEvents.inMemory(config), config);
    assertThat("the expiry changes the result here", expected.size(), lessThan(withoutExpiry.size()));
    assertThat("joins remain to check", expected.size(), greaterThan(0));

    Pipeline p = TestPipelines.create(runner);
    PCollection<NameCityStateId> out = p.apply(input.withWatermarks()).apply(new Query3().transform(config));
    PAssert.that(out).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }
}
