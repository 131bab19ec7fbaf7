package dev.weir.translation.streaming;

import dev.weir.translation.streaming.state.KeyedStateStore;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.StateBackend;

import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.DoFnInstances;
import dev.weir.translation.runtime.DoFnSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFnSchemaInformation;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * Runs one partition of a streaming stateful ParDo ({@link StatefulParDoPartition}) epoch by epoch
 * without Spark, as {@link GroupByKeyHarness} does for GroupByKey: elements are added for the next
 * epoch, which then runs at a given input watermark, epoch clock and step clock; its outputs and
 * the partition's report come back. State and DoFn instances live in this JVM under a run of
 * their own, dropped on close.
 */
final class StatefulParDoHarness<K, V, OutT> implements AutoCloseable {
  private final String runId = "harness-" + UUID.randomUUID();
  private StateBackend backend = MemoryStateBackend.INSTANCE;
  private final DoFnSpec dofn;
  private final Coder<K> keyCoder;
  private final TimePolicies policies;
  private final Coder<WindowedValue<KV<K, V>>> elementCoder;
  private final Coder<WindowedValue<OutT>> outputCoder;
  private final List<Tuple2<Integer, Tuple2<byte[], byte[]>>> pending = new ArrayList<>();
  private long epoch;
  private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private KeyedShuffle.PartitionReport report;

  @SuppressWarnings({"unchecked", "rawtypes"})
  StatefulParDoHarness(
      DoFn<KV<K, V>, OutT> fn,
      WindowingStrategy<?, ?> strategy,
      Coder<K> keyCoder,
      Coder<V> valueCoder,
      Coder<OutT> outputValueCoder,
      TimePolicies policies) {
    this.keyCoder = keyCoder;
    this.policies = policies;
    TupleTag<OutT> main = new TupleTag<>("main");
    Coder<BoundedWindow> windowCoder = (Coder<BoundedWindow>) strategy.getWindowFn().windowCoder();
    this.elementCoder = WindowedValues.getFullCoder(KvCoder.of(keyCoder, valueCoder), windowCoder);
    this.outputCoder = WindowedValues.getFullCoder(outputValueCoder, windowCoder);
    this.dofn =
        new DoFnSpec(
            "Stateful",
            fn,
            new SerializablePipelineOptions(PipelineOptionsFactory.create()),
            (Coder) KvCoder.of(keyCoder, valueCoder),
            Map.of(main, outputValueCoder),
            List.of(main),
            strategy,
            DoFnSchemaInformation.create(),
            Map.of(),
            List.of(),
            null,
            runId);
  }

  /** Adds an element for the next epoch. */
  StatefulParDoHarness<K, V, OutT> add(K key, V value, Instant timestamp, BoundedWindow window) throws Exception {
    WindowedValue<KV<K, V>> element = WindowedValues.of(KV.of(key, value), timestamp, window, PaneInfo.NO_FIRING);
    pending.add(
        new Tuple2<>(0, new Tuple2<>(CoderUtils.encodeToByteArray(keyCoder, key), CoderUtils.encodeToByteArray(elementCoder, element))));
    return this;
  }

  /**
   * Runs the next epoch: its elements arrive at {@code epochClock} (also the synchronized
   * processing time) and the previous watermark, then the watermark moves to {@code
   * inputWatermark} and the step's clock to {@code stepClock}. Returns what the DoFn emitted.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  List<WindowedValue<OutT>> epoch(Instant inputWatermark, Instant epochClock, Instant stepClock) throws Exception {
    epoch++;
    StatefulParDoPartition.Spec plan = new StatefulParDoPartition.Spec();
    plan.dofn = dofn;
    plan.run = new KeyedEpoch(
        runId, epoch, epoch - 1, watermark, inputWatermark, epochClock, stepClock, null, backend, new PartitionReports<>());
    plan.keyCoder = (Coder) keyCoder;
    plan.elementCoder = (Coder) elementCoder;
    plan.outputCoder = (Coder) outputCoder;
    plan.policies = policies;
    List<Tuple2<Integer, Tuple2<byte[], byte[]>>> input = new ArrayList<>(pending);
    pending.clear();
    Iterator<byte[]> out = new StatefulParDoPartition(plan).call(0, input.iterator());
    List<WindowedValue<OutT>> outputs = new ArrayList<>();
    while (out.hasNext()) {
      outputs.add(CoderUtils.decodeFromByteArray(outputCoder, out.next()));
    }
    watermark = inputWatermark;
    report = plan.run.holds().value().get(0);
    return outputs;
  }

  /** The earliest hold the partition reported after the last epoch. */
  Instant hold() {
    return new Instant(report.hold());
  }

  /** The earliest pending event-time timer the partition reported after the last epoch. */
  Instant nextEventTimer() {
    return new Instant(report.nextEventTimer());
  }

  /** Keeps the state in {@code backend} (the heap if not called). */
  StatefulParDoHarness<K, V, OutT> withBackend(StateBackend backend) {
    this.backend = backend;
    return this;
  }

  @Override
  public void close() {
    KeyedStateStore.dropRun(runId);
    DoFnInstances.closeRun(runId);
  }
}
