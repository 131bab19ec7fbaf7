package dev.weir.translation.streaming.state;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.CombiningState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.MultimapState;
import org.apache.beam.sdk.state.OrderedListState;
import org.apache.beam.sdk.state.SetState;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed state written to a checkpoint and read back, and the per-partition timer index, with each
 * backend.
 */
class KeyedStateStoreTest {
  private static final StateNamespace NS = StateNamespaces.global();
  private static final StateTag<ValueState<String>> VALUE = StateTags.value("value", StringUtf8Coder.of());
  private static final StateTag<BagState<Long>> BAG = StateTags.bag("bag", VarLongCoder.of());
  private static final StateTag<SetState<String>> SET = StateTags.set("set", StringUtf8Coder.of());
  private static final StateTag<MapState<String, Long>> MAP = StateTags.map("map", StringUtf8Coder.of(), VarLongCoder.of());
  private static final StateTag<MultimapState<String, Long>> MULTIMAP =
      StateTags.multimap("multimap", StringUtf8Coder.of(), VarLongCoder.of());
  private static final StateTag<OrderedListState<String>> LIST = StateTags.orderedList("list", StringUtf8Coder.of());
  private static final StateTag<CombiningState<Long, long[], Long>> SUM =
      StateTags.combiningValueFromInputInternal("sum", VarLongCoder.of(), Sum.ofLongs());
  private static final StateTag<WatermarkHoldState> HOLD = StateTags.watermarkStateInternal("hold", TimestampCombiner.EARLIEST);

  @SuppressWarnings("unchecked")
  private static final KeyedStateStore.Codec CODEC =
      KeyedStateStore.Codec.of((Coder) StringUtf8Coder.of(), GlobalWindow.Coder.INSTANCE);

  private static void fill(KeyStateInternals s) {
    s.state(NS, VALUE).write("v");
    s.state(NS, BAG).add(1L);
    s.state(NS, BAG).add(2L);
    s.state(NS, SET).add("a");
    s.state(NS, SET).add("b");
    s.state(NS, MAP).put("k", 7L);
    s.state(NS, MULTIMAP).put("m", 1L);
    s.state(NS, MULTIMAP).put("m", 2L);
    s.state(NS, LIST).add(TimestampedValue.of("late", new Instant(20)));
    s.state(NS, LIST).add(TimestampedValue.of("early", new Instant(10)));
    s.state(NS, SUM).add(5L);
    s.state(NS, SUM).add(6L);
    s.state(NS, HOLD).add(new Instant(42));
  }

  private static KeyStateInternals roundTrip(KeyStateInternals s) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    s.writeTo(new DataOutputStream(bytes));
    KeyStateInternals back = new KeyStateInternals(s.getKey());
    back.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    return back;
  }

  @Test
  void everyKindOfStateCellComesBackFromItsBytes() throws Exception {
    KeyStateInternals state = new KeyStateInternals("key");
    fill(state);
    KeyStateInternals back = roundTrip(state);
    // A hold is known before its cell is asked for: the step's output watermark needs it.
    assertThat(back.earliestHold(), equalTo(new Instant(42)));
    assertThat(back.state(NS, VALUE).read(), equalTo("v"));
    assertThat(back.state(NS, BAG).read(), contains(1L, 2L));
    assertThat(back.state(NS, SET).read(), containsInAnyOrder("a", "b"));
    assertThat(back.state(NS, MAP).get("k").read(), equalTo(7L));
    assertThat(back.state(NS, MULTIMAP).get("m").read(), containsInAnyOrder(1L, 2L));
    assertThat(
        back.state(NS, LIST).read(),
        contains(TimestampedValue.of("early", new Instant(10)), TimestampedValue.of("late", new Instant(20))));
    assertThat(back.state(NS, SUM).read(), equalTo(11L));
    assertThat(back.state(NS, HOLD).read(), equalTo(new Instant(42)));
    // Written again, cells not asked for since the restore are kept as they were read.
    KeyStateInternals twice = roundTrip(roundTrip(state));
    assertThat(twice.state(NS, SUM).read(), equalTo(11L));
    assertThat(twice.state(NS, VALUE).read(), equalTo("v"));
  }

  @Test
  void aClearedCellIsNotWritten() throws Exception {
    KeyStateInternals state = new KeyStateInternals("key");
    state.state(NS, VALUE).write("v");
    state.state(NS, VALUE).clear();
    state.compact();
    assertThat(roundTrip(state).isEmpty(), equalTo(true));
  }

  private static ByteBuffer key(String k) {
    return ByteBuffer.wrap(k.getBytes(StandardCharsets.UTF_8));
  }

  private static ByteBuffer encodedKey(String k) throws Exception {
    return ByteBuffer.wrap(org.apache.beam.sdk.util.CoderUtils.encodeToByteArray(StringUtf8Coder.of(), k));
  }

  private static void setTimer(KeyState s, String id, long at) {
    s.trackedTimers()
        .setTimer(TimerData.of(id, "", NS, new Instant(at), new Instant(at), TimeDomain.EVENT_TIME));
  }

  private static <T> List<T> list(java.util.Iterator<T> it) {
    List<T> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  /**
   * The keys due come from the index as it was when asked, read as the epoch goes: a key touched
   * since (one with elements) still comes, and says it was touched, so that the epoch skips it.
   */
  @ParameterizedTest
  @MethodSource("backends")
  void dueKeysComeFromTheIndexAsItWasAndSayWhetherTheEpochTouchedThem(StateBackend backend) throws Exception {
    String run = UUID.randomUUID().toString();
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, 1, 0, CODEC, null, true);
    for (String k : List.of("a", "b")) {
      KeyState s = p.getOrCreate(key(k), k, BoundedWindow.TIMESTAMP_MIN_VALUE);
      s.state.state(NS, VALUE).write(k);
      setTimer(s, "t", 100);
      p.touch(key(k), s, true, true);
    }
    KeyedStateStore.commit(backend, p, 1);
    p = KeyedStateStore.open(backend, run, "step", 0, 2, 1, CODEC, null, true);
    java.util.Iterator<ByteBuffer> due = p.due(new Instant(200), null);
    // "a" had elements this epoch: its timer moved on.
    KeyState a = p.get(key("a"));
    a.trackedTimers().deleteTimer(NS, "t", "", TimeDomain.EVENT_TIME);
    setTimer(a, "t", 300);
    p.touch(key("a"), a, true, true);
    List<String> visit = new java.util.ArrayList<>();
    while (due.hasNext()) {
      ByteBuffer k = due.next();
      KeyState s = p.get(k);
      if (s != null && !p.touchedThisEpoch(s)) {
        visit.add(StandardCharsets.UTF_8.decode(k.duplicate()).toString());
      }
    }
    assertThat(visit, contains("b"));
    KeyedStateStore.dropRun(run);
  }

  static Stream<StateBackend> backends() {
    return Stream.of(MemoryStateBackend.INSTANCE, new RocksDbStateBackend(64));
  }

  @ParameterizedTest
  @MethodSource("backends")
  void onlyKeysWithATimerDueAreVisited(StateBackend backend) throws Exception {
    String run = UUID.randomUUID().toString();
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, 1, 0, CODEC, null, true);
    for (String k : List.of("a", "b", "c")) {
      KeyState s = p.getOrCreate(key(k), k, BoundedWindow.TIMESTAMP_MIN_VALUE);
      s.state.state(NS, VALUE).write(k);
      setTimer(s, "t", k.equals("a") ? 100 : 1000);
      p.touch(key(k), s, true, true);
    }
    assertThat(list(p.due(new Instant(500), null)), contains(key("a")));
    assertThat(list(p.due(new Instant(1000), null)), containsInAnyOrder(key("a"), key("b"), key("c")));
    assertThat(p.earliestHold(), equalTo(100L));
    // Batch defaults: processing-time timers do not fire, only event-time ones are due.
    assertThat(
        list(KeyedStateStore.due(p, dev.weir.translation.TimePolicies.batchDefaults(), new Instant(500), new Instant(0))),
        contains(key("a")));
    KeyedStateStore.dropRun(run);
  }

  @ParameterizedTest
  @MethodSource("backends")
  void aPartitionComesBackFromItsCheckpointAsCommitted(StateBackend backend, @TempDir Path dir) throws Exception {
    StateFiles files = new StateFiles(dir.toString(), Configuration::new);
    String run = UUID.randomUUID().toString();
    // Epoch 1: three keys with state and a timer each.
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, 1, 0, CODEC, files, true);
    for (String k : List.of("a", "b", "c")) {
      KeyState s = p.getOrCreate(encodedKey(k), k, BoundedWindow.TIMESTAMP_MIN_VALUE);
      s.state.state(NS, BAG).add(1L);
      setTimer(s, "t-" + k, 100);
      p.touch(encodedKey(k), s, true, true);
    }
    KeyedStateStore.commit(backend, p, 1);
    // Epoch 2 changes one key and drops another.
    p = KeyedStateStore.open(backend, run, "step", 0, 2, 1, CODEC, files, true);
    KeyState a = p.get(encodedKey("a"));
    a.state.state(NS, BAG).add(2L);
    p.touch(encodedKey("a"), a, true, true);
    KeyState b = p.get(encodedKey("b"));
    b.state.state(NS, BAG).clear();
    b.trackedTimers().deleteTimer(NS, "t-b", "", TimeDomain.EVENT_TIME);
    p.touch(encodedKey("b"), b, true, true);
    KeyedStateStore.commit(backend, p, 2);
    // Epoch 3 fails halfway: its changes must not come back.
    p = KeyedStateStore.open(backend, run, "step", 0, 3, 2, CODEC, files, true);
    p.get(encodedKey("c")).state.state(NS, BAG).add(99L);

    // Another run (a restart) reads epoch 2 back for epoch 3.
    String restart = UUID.randomUUID().toString();
    KeyedPartition back =
        KeyedStateStore.open(backend, restart, "step", 0, 3, 2, CODEC, files, true);
    assertThat(back.size(), equalTo(2L));
    assertThat(back.get(encodedKey("a")).state.state(NS, BAG).read(), contains(1L, 2L));
    assertThat(back.get(encodedKey("b")), nullValue());
    assertThat(back.get(encodedKey("c")).state.state(NS, BAG).read(), contains(1L));
    assertThat(list(back.due(new Instant(101), null)), containsInAnyOrder(encodedKey("a"), encodedKey("c")));
    assertThat(back.earliestHold(), equalTo(100L));
    Map<String, TimerData> timers = back.get(encodedKey("c")).pendingTimers;
    assertThat(timers.size(), equalTo(1));
    // The retry of a failed task in the same run reads it back too, not the half-changed memory.
    KeyedPartition retried = KeyedStateStore.open(backend, run, "step", 0, 3, 2, CODEC, files, true);
    assertThat(retried.get(encodedKey("c")).state.state(NS, BAG).read(), contains(1L));
    if (backend instanceof MemoryStateBackend) {
      try (Stream<Path> written = Files.list(dir.resolve("0"))) {
        assertThat(written.map(f -> f.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList(),
            contains("0000000000000000001.delta", "0000000000000000002.delta"));
      }
    }
    KeyedStateStore.dropRun(run);
    KeyedStateStore.dropRun(restart);
  }
}
