package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The driver's watermark bookkeeping, step by step, without Spark. */
class StreamingRunTest {
  private static final Instant MIN = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private static final Instant MAX = BoundedWindow.TIMESTAMP_MAX_VALUE;

  private static Instant t(long millis) {
    return new Instant(millis);
  }

  /** fast -> map -> group; slow -> group. */
  private static StreamingRun run() {
    Map<String, List<String>> producers = new LinkedHashMap<>();
    producers.put("fast", List.of());
    producers.put("slow", List.of());
    producers.put("map", List.of("fast"));
    producers.put("group", List.of("map", "slow"));
    return new StreamingRun(StreamingSettings.withMaxRecords(10), 2, producers, Map.of(), false, null);
  }

  private static void source(StreamingRun run, String name, Instant watermark) {
    run.beginStep(name);
    run.reportOutputWatermark(watermark);
    run.endStep();
  }

  @Test
  void inputIsTheLeastOutputUpstreamAndHoldsKeepTheOutputBack() {
    StreamingRun run = run();
    run.beginEpoch(false);
    source(run, "fast", t(10));
    source(run, "slow", t(5));
    run.beginStep("map");
    assertThat(run.inputWatermarkBefore(), equalTo(MIN));
    assertThat(run.inputWatermark(), equalTo(t(10)));
    run.endStep();
    run.beginStep("group");
    assertThat(run.inputWatermark(), equalTo(t(5)));
    run.reportOutputWatermark(t(3));
    assertThat("a step's watermark moved", run.endStep(), is(true));
    run.endEpoch(true);
    assertThat(run.watermarks().get("map"), equalTo(new OperatorWatermarks(t(10), t(10))));
    assertThat(run.watermarks().get("group"), equalTo(new OperatorWatermarks(t(5), t(3))));
    assertThat(run.finished(), is(false));
  }

  @Test
  void watermarksNeverGoBack() {
    StreamingRun run = run();
    run.beginEpoch(false);
    source(run, "fast", t(10));
    source(run, "slow", t(10));
    run.beginStep("map");
    run.endStep();
    run.beginStep("group");
    run.endStep();
    run.endEpoch(true);

    run.beginEpoch(false);
    source(run, "fast", t(7));
    run.beginStep("slow");
    run.reportOutputWatermark(t(12));
    run.endStep();
    run.beginStep("map");
    assertThat(run.inputWatermarkBefore(), equalTo(t(10)));
    assertThat("the source's report went back; its output did not", run.inputWatermark(), equalTo(t(10)));
    assertThat(run.endStep(), is(false));
    run.beginStep("group");
    // Late data would hold the output before where it was: it stays.
    run.reportOutputWatermark(t(4));
    run.endStep();
    run.endEpoch(true);
    assertThat(run.watermarks().get("group"), equalTo(new OperatorWatermarks(t(10), t(10))));
  }

  @Test
  void theRunFinishesWhenEveryOutputReachesTheEndOfTime() {
    StreamingRun run = run();
    run.beginEpoch(false);
    source(run, "fast", MAX);
    source(run, "slow", MAX);
    run.beginStep("map");
    run.endStep();
    run.beginStep("group");
    run.reportOutputWatermark(t(1));
    run.endStep();
    run.endEpoch(true);
    assertThat(run.finished(), is(false));
    assertThat(run.heldAfterEndOfInput().size(), equalTo(1));

    run.beginEpoch(false);
    source(run, "fast", MAX);
    source(run, "slow", MAX);
    run.beginStep("map");
    run.endStep();
    run.beginStep("group");
    run.endStep();
    run.endEpoch(true);
    assertThat(run.finished(), is(true));
  }

  @Test
  void epochEndActionsRunOnlyForACompletedEpoch() {
    StreamingRun run = run();
    int[] finalized = {0};
    run.beginEpoch(false);
    run.atEpochEnd(() -> finalized[0]++);
    run.endEpoch(false);
    assertThat(finalized[0], equalTo(0));
    run.beginEpoch(false);
    run.atEpochEnd(() -> finalized[0]++);
    run.endEpoch(true);
    assertThat(finalized[0], equalTo(1));
  }

  @Test
  void anIdleProducerLeavesTheMinimumAndAllIdleMakesAStepIdle() {
    StreamingRun run = run();
    run.beginEpoch(false);
    source(run, "fast", t(10));
    run.beginStep("slow");
    run.reportOutputWatermark(t(2));
    run.reportIdle();
    run.endStep();
    run.beginStep("map");
    run.endStep();
    run.beginStep("group");
    assertThat("the idle source does not hold the group back", run.inputWatermark(), equalTo(t(10)));
    run.endStep();
    run.endEpoch(true);
    assertThat(run.watermarks().get("slow").idle(), is(true));
    assertThat(run.watermarks().get("group").idle(), is(false));

    run.beginEpoch(false);
    run.beginStep("fast");
    run.reportOutputWatermark(t(10));
    run.reportIdle();
    run.endStep();
    run.beginStep("slow");
    run.reportOutputWatermark(t(2));
    run.reportIdle();
    run.endStep();
    run.beginStep("map");
    run.endStep();
    run.beginStep("group");
    assertThat("all inputs idle: the input watermark stays", run.inputWatermark(), equalTo(t(10)));
    run.endStep();
    run.endEpoch(true);
    assertThat(run.watermarks().get("group").idle(), is(true));
  }
}
