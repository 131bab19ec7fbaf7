package dev.weir.translation.streaming;

import dev.weir.translation.streaming.state.KeyedStateStore;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.StateBackend;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * Runs one partition of a streaming GroupByKey ({@link GroupAlsoByWindowPartition}) epoch by
 * epoch without Spark: elements are added for the next epoch, which then runs at a given input
 * watermark, epoch clock and step clock; its panes and the partition's report come back. State
 * lives in the executor's store under a run of its own, dropped on close. The step buffers its
 * values ({@link #buffering}), as a GroupByKey does, or combines them ({@link #combining}), as a
 * Combine.PerKey does with the accumulators its map side sends.
 */
final class GroupByKeyHarness<K, V, O> implements AutoCloseable {
  private final String runId = "harness-" + UUID.randomUUID();
  private StateBackend backend = MemoryStateBackend.INSTANCE;
  private final WindowingStrategy<?, BoundedWindow> strategy;
  private final Coder<K> keyCoder;
  private final SystemReduceFn<K, V, ?, O, BoundedWindow> reduceFn;
  private final TimePolicies policies;
  private final Coder<WindowedValue<V>> elementCoder;
  private final Coder<WindowedValue<KV<K, O>>> outputCoder;
  private final List<Tuple2<Integer, Tuple2<byte[], byte[]>>> pending = new ArrayList<>();
  private long epoch;
  private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private KeyedShuffle.PartitionReport report;
  private EndOfWindowCombining endOfWindow;

  @SuppressWarnings("unchecked")
  private GroupByKeyHarness(
      WindowingStrategy<?, ?> strategy,
      Coder<K> keyCoder,
      Coder<V> valueCoder,
      SystemReduceFn<K, V, ?, O, BoundedWindow> reduceFn,
      Coder<O> outputValueCoder,
      TimePolicies policies) {
    this.strategy = (WindowingStrategy<?, BoundedWindow>) strategy;
    this.keyCoder = keyCoder;
    this.reduceFn = reduceFn;
    this.policies = policies;
    Coder<BoundedWindow> windowCoder = (Coder<BoundedWindow>) this.strategy.getWindowFn().windowCoder();
    this.elementCoder = WindowedValues.getFullCoder(valueCoder, windowCoder);
    this.outputCoder = WindowedValues.getFullCoder(KvCoder.of(keyCoder, outputValueCoder), windowCoder);
  }

  /** A GroupByKey: each key and window's values, in panes. */
  static <K, V> GroupByKeyHarness<K, V, Iterable<V>> buffering(
      WindowingStrategy<?, ?> strategy, Coder<K> keyCoder, Coder<V> valueCoder, TimePolicies policies) {
    return new GroupByKeyHarness<>(
        strategy, keyCoder, valueCoder, SystemReduceFn.buffering(valueCoder), IterableCoder.of(valueCoder), policies);
  }

  /**
   * A Combine.PerKey's keyed side: each added value is an accumulator of {@code fn}, merged into
   * the key and window's; panes carry the extracted output.
   */
  static <K, A, O> GroupByKeyHarness<K, A, O> combining(
      WindowingStrategy<?, ?> strategy,
      Coder<K> keyCoder,
      Coder<A> accumulatorCoder,
      SystemReduceFn<K, A, ?, O, BoundedWindow> reduceFn,
      Coder<O> outputCoder,
      TimePolicies policies) {
    return new GroupByKeyHarness<>(strategy, keyCoder, accumulatorCoder, reduceFn, outputCoder, policies);
  }

  /** Adds an element for the next epoch. */
  GroupByKeyHarness<K, V, O> add(K key, V value, Instant timestamp, BoundedWindow window) throws Exception {
    WindowedValue<V> element = WindowedValues.of(value, timestamp, window, PaneInfo.NO_FIRING);
    pending.add(
        new Tuple2<>(0, new Tuple2<>(CoderUtils.encodeToByteArray(keyCoder, key), CoderUtils.encodeToByteArray(elementCoder, element))));
    return this;
  }

  /**
   * Runs the next epoch: its elements arrive at {@code epochClock} (also the synchronized
   * processing time) and the previous watermark, then the watermark moves to {@code
   * inputWatermark} and the step's clock to {@code stepClock}. Returns the panes emitted.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  List<WindowedValue<KV<K, O>>> epoch(Instant inputWatermark, Instant epochClock, Instant stepClock) throws Exception {
    epoch++;
    GroupAlsoByWindowPartition.Spec spec = new GroupAlsoByWindowPartition.Spec();
    spec.stepName = "GroupByKey";
    spec.run = new KeyedEpoch(
        runId, epoch, epoch - 1, watermark, inputWatermark, epochClock, stepClock, null, backend, new PartitionReports<>());
    spec.strategy = strategy;
    spec.keyCoder = (Coder) keyCoder;
    spec.reduceFn = (SystemReduceFn) reduceFn;
    spec.elementCoder = (Coder) elementCoder;
    spec.outputCoder = (Coder) outputCoder;
    spec.options = new SerializablePipelineOptions(PipelineOptionsFactory.create());
    spec.policies = policies;
    spec.endOfWindow = endOfWindow;
    List<Tuple2<Integer, Tuple2<byte[], byte[]>>> input = new ArrayList<>(pending);
    pending.clear();
    Iterator<byte[]> out = new GroupAlsoByWindowPartition(spec).call(0, input.iterator());
    List<WindowedValue<KV<K, O>>> panes = new ArrayList<>();
    while (out.hasNext()) {
      panes.add(CoderUtils.decodeFromByteArray(outputCoder, out.next()));
    }
    watermark = inputWatermark;
    report = spec.run.holds().value().get(0);
    return panes;
  }

  /** The earliest hold the partition reported after the last epoch. */
  Instant hold() {
    return new Instant(report.hold());
  }

  /** Keeps the state in {@code backend} (the heap if not called). */
  GroupByKeyHarness<K, V, O> withBackend(StateBackend backend) {
    this.backend = backend;
    return this;
  }

  /** Combines per key with {@code endOfWindow} rather than with Beam's ReduceFnRunner. */
  GroupByKeyHarness<K, V, O> withEndOfWindow(EndOfWindowCombining endOfWindow) {
    this.endOfWindow = endOfWindow;
    return this;
  }

  @Override
  public void close() {
    KeyedStateStore.dropRun(runId);
  }
}
