package dev.weir.translation.streaming.state;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.CombiningState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.MultimapState;
import org.apache.beam.sdk.state.OrderedListState;
import org.apache.beam.sdk.state.SetState;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every kind of state cell in RocksDB does what Beam's in-memory cell does: each test runs the
 * same operations on both, compares every read, and compares again after the key was written back
 * and read from RocksDB by a new {@link KeyState}. Beam's {@link InMemoryStateInternals} is the
 * reference runners-core and the DirectRunner use; some expected values are also spelled out
 * from Beam's state API docs.
 */
class RocksDbCellsTest {
  private static final StateNamespace NS = StateNamespaces.global();
  private static final StateNamespace OTHER_NS =
      StateNamespaces.window(IntervalWindow.getCoder(), new IntervalWindow(new Instant(0), new Instant(10)));

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final KeyedStateStore.Codec CODEC =
      KeyedStateStore.Codec.of((Coder) StringUtf8Coder.of(), GlobalWindow.Coder.INSTANCE);

  private final String run = UUID.randomUUID().toString();
  private final RocksDbStateBackend backend = new RocksDbStateBackend(16);
  private final InMemoryStateInternals<String> reference = InMemoryStateInternals.forKey("k");
  private KeyedPartition partition;
  private ByteBuffer key;
  private KeyState keyState;

  @BeforeEach
  void open() throws Exception {
    partition = KeyedStateStore.open(backend, run, "step", 0, 1, 0, CODEC, null, true);
    key = ByteBuffer.wrap(CoderUtils.encodeToByteArray(StringUtf8Coder.of(), "k"));
    keyState = partition.getOrCreate(key, "k", BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @AfterEach
  void drop() {
    KeyedStateStore.dropRun(run);
  }

  /** Runs {@code op} on both, then checks that {@code read} gives the same on both. */
  private <S extends org.apache.beam.sdk.state.State> void both(
      StateTag<S> tag, Consumer<S> op, Function<S, Object> read) {
    op.accept(keyState.state.state(NS, tag));
    op.accept(reference.state(NS, tag));
    same(tag, read);
  }

  private <S extends org.apache.beam.sdk.state.State> void same(StateTag<S> tag, Function<S, Object> read) {
    assertThat(normal(read.apply(keyState.state.state(NS, tag))), equalTo(normal(read.apply(reference.state(NS, tag)))));
  }

  /** Writes the key back and reads it from RocksDB again, as the next epoch would. */
  private void reload() throws Exception {
    partition.touch(key, keyState, true, true);
    keyState = partition.get(key);
  }

  /** Iterables as lists, so that they compare by content. */
  private static Object normal(Object o) {
    if (o instanceof Iterable<?> it) {
      List<Object> out = new ArrayList<>();
      for (Object e : it) {
        out.add(e instanceof Map.Entry<?, ?> entry ? Map.entry(entry.getKey(), String.valueOf(entry.getValue())) : e);
      }
      return out;
    }
    return o;
  }

  /** Iterables as sets, for cells whose order Beam leaves open. */
  private static Object unordered(Object o) {
    return o instanceof Iterable<?> ? new HashSet<>((List<?>) normal(o)) : o;
  }

  @Test
  void value() throws Exception {
    StateTag<ValueState<String>> tag = StateTags.value("value", StringUtf8Coder.of());
    same(tag, ValueState::read);
    both(tag, v -> v.write("a"), ValueState::read);
    reload();
    same(tag, ValueState::read);
    both(tag, v -> v.write("b"), ValueState::read);
    both(tag, ValueState::clear, ValueState::read);
    // The key had nothing else: it is gone.
    reload();
    assertThat(keyState, nullValue());
  }

  @Test
  void bagKeepsTheOrderElementsWereAddedIn() throws Exception {
    StateTag<BagState<Long>> tag = StateTags.bag("bag", VarLongCoder.of());
    both(tag, b -> {}, b -> b.isEmpty().read());
    both(tag, b -> { b.add(3L); b.add(1L); b.add(2L); }, BagState::read);
    reload();
    same(tag, BagState::read);
    assertThat(keyState.state.state(NS, tag).read(), contains(3L, 1L, 2L));
    both(tag, b -> b.add(1L), BagState::read);
    same(tag, b -> b.isEmpty().read());
    both(tag, BagState::clear, BagState::read);
    same(tag, b -> b.isEmpty().read());
    both(tag, b -> b.add(7L), BagState::read);
    reload();
    same(tag, BagState::read);
  }

  @Test
  void set() throws Exception {
    StateTag<SetState<String>> tag = StateTags.set("set", StringUtf8Coder.of());
    both(tag, s -> { s.add("a"); s.add("b"); s.add("a"); }, s -> unordered(s.read()));
    same(tag, s -> s.contains("a").read());
    same(tag, s -> s.contains("z").read());
    // addIfAbsent says whether it added.
    assertThat(keyState.state.state(NS, tag).addIfAbsent("a").read(), equalTo(false));
    assertThat(reference.state(NS, tag).addIfAbsent("a").read(), equalTo(false));
    assertThat(keyState.state.state(NS, tag).addIfAbsent("c").read(), equalTo(true));
    assertThat(reference.state(NS, tag).addIfAbsent("c").read(), equalTo(true));
    reload();
    same(tag, s -> unordered(s.read()));
    both(tag, s -> s.remove("b"), s -> unordered(s.read()));
    same(tag, s -> s.isEmpty().read());
    both(tag, SetState::clear, s -> unordered(s.read()));
    same(tag, s -> s.isEmpty().read());
  }

  @Test
  void map() throws Exception {
    StateTag<MapState<String, Long>> tag = StateTags.map("map", StringUtf8Coder.of(), VarLongCoder.of());
    both(tag, m -> { m.put("k1", 1L); m.put("k2", 2L); m.put("k1", 3L); }, m -> unordered(m.entries().read()));
    same(tag, m -> m.get("k1").read());
    same(tag, m -> m.get("absent").read());
    same(tag, m -> m.getOrDefault("absent", 9L).read());
    same(tag, m -> m.getOrDefault("k2", 9L).read());
    // putIfAbsent and computeIfAbsent return what the key had before (null if nothing).
    assertThat(keyState.state.state(NS, tag).putIfAbsent("k1", 5L).read(), equalTo(3L));
    reference.state(NS, tag).putIfAbsent("k1", 5L);
    assertThat(keyState.state.state(NS, tag).computeIfAbsent("k3", k -> 4L).read(), nullValue());
    reference.state(NS, tag).computeIfAbsent("k3", k -> 4L);
    reload();
    same(tag, m -> unordered(m.keys().read()));
    same(tag, m -> unordered(m.values().read()));
    same(tag, m -> unordered(m.entries().read()));
    both(tag, m -> m.remove("k1"), m -> unordered(m.entries().read()));
    same(tag, m -> m.isEmpty().read());
    both(tag, MapState::clear, m -> unordered(m.entries().read()));
    same(tag, m -> m.isEmpty().read());
  }

  @Test
  void multimap() throws Exception {
    StateTag<MultimapState<String, Long>> tag =
        StateTags.multimap("multimap", StringUtf8Coder.of(), VarLongCoder.of());
    both(tag, m -> { m.put("a", 1L); m.put("b", 3L); m.put("a", 2L); m.put("a", 1L); }, m -> unordered(m.keys().read()));
    same(tag, m -> m.get("a").read());
    same(tag, m -> m.get("z").read());
    same(tag, m -> m.containsKey("b").read());
    same(tag, m -> m.containsKey("z").read());
    reload();
    assertThat(keyState.state.state(NS, tag).get("a").read(), contains(1L, 2L, 1L));
    same(tag, m -> m.entries().read().spliterator().getExactSizeIfKnown());
    both(tag, m -> m.remove("a"), m -> unordered(m.entries().read()));
    same(tag, m -> m.isEmpty().read());
    both(tag, MultimapState::clear, m -> m.isEmpty().read());
  }

  @Test
  void orderedListReadsInTimestampOrderAndByRange() throws Exception {
    StateTag<OrderedListState<String>> tag = StateTags.orderedList("list", StringUtf8Coder.of());
    both(
        tag,
        l -> {
          l.add(TimestampedValue.of("c", new Instant(30)));
          l.add(TimestampedValue.of("a", new Instant(10)));
          l.add(TimestampedValue.of("b", new Instant(20)));
          l.add(TimestampedValue.of("a2", new Instant(10)));
          l.add(TimestampedValue.of("neg", new Instant(-5)));
        },
        OrderedListState::read);
    reload();
    same(tag, OrderedListState::read);
    // [min, limit): 30 is not in [10, 30).
    same(tag, l -> l.readRange(new Instant(10), new Instant(30)));
    assertThat(
        normal(keyState.state.state(NS, tag).readRange(new Instant(10), new Instant(30))),
        equalTo(List.of(
            TimestampedValue.of("a", new Instant(10)),
            TimestampedValue.of("a2", new Instant(10)),
            TimestampedValue.of("b", new Instant(20)))));
    both(tag, l -> l.clearRange(new Instant(0), new Instant(20)), OrderedListState::read);
    same(tag, l -> l.isEmpty().read());
    both(tag, OrderedListState::clear, OrderedListState::read);
    same(tag, l -> l.isEmpty().read());
  }

  @Test
  void combining() throws Exception {
    StateTag<CombiningState<Long, long[], Long>> tag =
        StateTags.combiningValueFromInputInternal("sum", VarLongCoder.of(), Sum.ofLongs());
    same(tag, c -> c.isEmpty().read());
    same(tag, CombiningState::read);
    both(tag, c -> { c.add(5L); c.add(6L); }, CombiningState::read);
    same(tag, c -> c.isEmpty().read());
    reload();
    same(tag, CombiningState::read);
    both(tag, c -> c.addAccum(new long[] {10}), CombiningState::read);
    assertThat(keyState.state.state(NS, tag).read(), equalTo(21L));
    both(tag, CombiningState::clear, CombiningState::read);
    same(tag, c -> c.isEmpty().read());
  }

  @Test
  void watermarkHoldsCombineAndAreFoundWithoutTheirCells() throws Exception {
    StateTag<WatermarkHoldState> earliest = StateTags.watermarkStateInternal("early", TimestampCombiner.EARLIEST);
    StateTag<WatermarkHoldState> latest = StateTags.watermarkStateInternal("late", TimestampCombiner.LATEST);
    both(earliest, h -> { h.add(new Instant(42)); h.add(new Instant(40)); h.add(new Instant(50)); }, WatermarkHoldState::read);
    both(latest, h -> { h.add(new Instant(42)); h.add(new Instant(60)); }, WatermarkHoldState::read);
    keyState.state.state(OTHER_NS, earliest).add(new Instant(-7));
    reload();
    // A restored key knows its earliest hold, in any namespace, before a cell is bound.
    assertThat(keyState.state.earliestHold(), equalTo(new Instant(-7)));
    same(earliest, WatermarkHoldState::read);
    same(latest, WatermarkHoldState::read);
    keyState.state.state(OTHER_NS, earliest).clear();
    both(earliest, WatermarkHoldState::clear, h -> h.isEmpty().read());
    // What is left is the LATEST hold of 42 and 60.
    assertThat(keyState.state.earliestHold(), equalTo(new Instant(60)));
  }

  @Test
  void aKeyWithEveryCellClearedIsDropped() throws Exception {
    StateTag<BagState<Long>> bag = StateTags.bag("bag", VarLongCoder.of());
    StateTag<ValueState<String>> value = StateTags.value("value", StringUtf8Coder.of());
    keyState.state.state(NS, bag).add(1L);
    keyState.state.state(OTHER_NS, value).write("v");
    reload();
    assertThat(partition.size(), equalTo(1L));
    keyState.state.state(NS, bag).clear();
    assertThat(keyState.state.isEmpty(), equalTo(false));
    keyState.state.state(OTHER_NS, value).clear();
    assertThat(keyState.state.isEmpty(), equalTo(true));
    partition.touch(key, keyState, true, true);
    assertThat(partition.get(key), nullValue());
    assertThat(partition.size(), equalTo(0L));
  }

  /**
   * The run ends (its partitions are closed) while a task still works on one: the task's next call
   * fails with an exception. On a closed RocksDB handle it would crash the JVM.
   */
  @Test
  void aPartitionClosedUnderATaskFailsItsNextCallInsteadOfCrashingTheJvm() throws Exception {
    reload();
    KeyedStateStore.dropRun(run);
    IllegalStateException e =
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> partition.get(key));
    assertThat(e.getMessage(), org.hamcrest.Matchers.containsString("was closed"));
  }

  @Test
  void cellsOfOtherKeysNamespacesAndTagsStayApart() throws Exception {
    StateTag<BagState<Long>> bag = StateTags.bag("b", VarLongCoder.of());
    StateTag<BagState<Long>> longerTag = StateTags.bag("bb", VarLongCoder.of());
    keyState.state.state(NS, bag).add(1L);
    keyState.state.state(NS, longerTag).add(2L);
    keyState.state.state(OTHER_NS, bag).add(3L);
    ByteBuffer longerKey = ByteBuffer.wrap(CoderUtils.encodeToByteArray(StringUtf8Coder.of(), "kk"));
    KeyState other = partition.getOrCreate(longerKey, "kk", BoundedWindow.TIMESTAMP_MIN_VALUE);
    other.state.state(NS, bag).add(4L);
    partition.touch(longerKey, other, true, true);
    reload();
    assertThat(keyState.state.state(NS, bag).read(), contains(1L));
    assertThat(keyState.state.state(NS, longerTag).read(), contains(2L));
    assertThat(keyState.state.state(OTHER_NS, bag).read(), contains(3L));
    assertThat(partition.get(longerKey).state.state(NS, bag).read(), contains(4L));
    keyState.state.state(NS, bag).clear();
    assertThat(keyState.state.state(NS, longerTag).read(), contains(2L));
    assertThat(partition.get(longerKey).state.state(NS, bag).read(), contains(4L));
    assertThat((List<?>) normal(keyState.state.state(NS, bag).read()), empty());
  }
}
