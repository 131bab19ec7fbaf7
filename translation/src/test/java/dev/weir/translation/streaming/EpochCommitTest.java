package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.DelegateCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The epoch commit is written field by field with explicit coders and a format version, and what
 * steps keep between epochs comes back from it through each kind's coder.
 */
class EpochCommitTest {
  /** A step's count of something, as a one-element array so that the step can change it. */
  private static final StepProgress<long[]> COUNT =
      new StepProgress<>("count", DelegateCoder.of(VarLongCoder.of(), c -> c[0], c -> new long[] {c}), () -> new long[] {0});

  private static final StepProgress<long[]> OTHER =
      new StepProgress<>("other", DelegateCoder.of(VarLongCoder.of(), c -> c[0], c -> new long[] {c}), () -> new long[] {-1});

  private static StreamingRun run() {
    Map<String, List<String>> producers = new LinkedHashMap<>();
    producers.put("read", List.of());
    producers.put("count", List.of("read"));
    return new StreamingRun(StreamingSettings.withMaxRecords(10), 3, producers, Map.of(), false, null);
  }

  private static EpochCommit throughBytes(EpochCommit commit) throws IOException {
    return EpochCommit.decode(commit.encode(), "test commit");
  }

  @Test
  void everyFieldComesBack() throws IOException {
    Map<String, OperatorWatermarks> watermarks = new LinkedHashMap<>();
    watermarks.put("read", new OperatorWatermarks(BoundedWindow.TIMESTAMP_MAX_VALUE, new Instant(42), true));
    watermarks.put("count", new OperatorWatermarks(new Instant(42), new Instant(7)));
    EpochCommit commit =
        new EpochCommit(
            12, 1_000_000L, true, 3, watermarks, Map.of("read [splits]", new byte[] {1, 2, 3}), Map.of("view", new byte[] {9}));
    EpochCommit back = throughBytes(commit);
    assertThat(back.epoch(), equalTo(12L));
    assertThat(back.processingTimeMillis(), equalTo(1_000_000L));
    assertThat(back.draining(), is(true));
    assertThat(back.keyedPartitions(), equalTo(3));
    assertThat(back.watermarks(), equalTo(watermarks));
    assertThat(new ArrayList<>(back.watermarks().keySet()), equalTo(List.of("read", "count")));
    assertThat(back.progress().get("read [splits]"), equalTo(new byte[] {1, 2, 3}));
    assertThat(back.sideInputs().get("view"), equalTo(new byte[] {9}));
  }

  @Test
  void aStepsProgressIsRestoredByItsKindsCoderAndOneNotAskedForIsKept() throws IOException {
    StreamingRun first = run();
    first.beginEpoch(false);
    first.beginStep("read");
    first.progress(COUNT)[0] = 5;
    first.progress(OTHER)[0] = 8;
    first.endStep();
    first.beginStep("count");
    first.progress(COUNT)[0] = 6;
    first.endStep();
    first.endEpoch(true);

    StreamingRun second = run();
    second.restore(throughBytes(first.snapshot()));
    assertThat(second.epoch(), equalTo(1L));
    assertThat(second.progressOf("read", COUNT)[0], equalTo(5L));
    assertThat(second.progressOf("count", COUNT)[0], equalTo(6L));
    // "read [other]" was not asked for in the second run: its next commit still holds it.
    StreamingRun third = run();
    third.restore(throughBytes(second.snapshot()));
    assertThat(third.progressOf("read", OTHER)[0], equalTo(8L));
    assertThat("a kind never kept starts at its initial value", third.progressOf("count", OTHER)[0], equalTo(-1L));
  }

  @Test
  void aKindKeptUnderTheSameNameWithAnotherCoderIsAnError() {
    StreamingRun run = run();
    run.beginEpoch(false);
    run.beginStep("read");
    run.progress(COUNT);
    StepProgress<String> clash = new StepProgress<>("count", StringUtf8Coder.of(), () -> "");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> run.progress(clash));
    assertThat(e.getMessage(), containsString("Step 'read'"));
  }

  @Test
  void aSideInputsPanesComeBack() throws Exception {
    Coder<WindowedValue<Object>> coder = castCoder(WindowedValues.getFullCoder(StringUtf8Coder.of(), GlobalWindow.Coder.INSTANCE));
    SideInputHistory.SideInputContents contents = new SideInputHistory.SideInputContents();
    contents.epoch = 4;
    PaneInfo second = PaneInfo.createPane(false, false, PaneInfo.Timing.EARLY, 1, 1);
    contents.add(
        List.of(
            CoderUtils.encodeToByteArray(coder, WindowedValues.of("a", new Instant(1), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING)),
            CoderUtils.encodeToByteArray(coder, WindowedValues.of("b", new Instant(2), GlobalWindow.INSTANCE, second))),
        coder,
        GlobalWindow.Coder.INSTANCE);
    SideInputHistory.SideInputContents back =
        CoderUtils.decodeFromByteArray(SideInputHistory.CODER, CoderUtils.encodeToByteArray(SideInputHistory.CODER, contents));
    assertThat(back.epoch, equalTo(4L));
    // Only the latest pane (index 1, "b") is kept, as Beam's triggered side inputs say.
    assertThat(back.elements.size(), equalTo(1));
    assertThat(CoderUtils.decodeFromByteArray(coder, back.elements.get(0).bytes()).getValue(), equalTo("b"));
    assertThat(back.latestPane, equalTo(contents.latestPane));
    assertThat(back.received, equalTo(contents.received));
    assertThat(back.received.size(), equalTo(1));
  }

  @Test
  void aCommitOfAnotherFormatIsRefused() {
    // A Java-serialized object, as commits were before the format had a version in them.
    byte[] javaSerialized = {(byte) 0xac, (byte) 0xed, 0, 5, 0x73, 0x72};
    IOException e = assertThrows(IOException.class, () -> EpochCommit.decode(javaSerialized, "commits/epoch-3"));
    assertThat(e.getMessage(), containsString("commits/epoch-3 is not an epoch commit of format " + EpochCommit.FORMAT));
  }

  @Test
  void aCommitCutShortIsRefused() throws IOException {
    byte[] whole = new EpochCommit(1, 2, false, 3, Map.of(), Map.of("a", new byte[] {1}), Map.of()).encode();
    byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 2);
    assertThrows(IOException.class, () -> EpochCommit.decode(cut, "commits/epoch-1"));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Coder<WindowedValue<Object>> castCoder(Coder<?> coder) {
    return (Coder) coder;
  }
}
