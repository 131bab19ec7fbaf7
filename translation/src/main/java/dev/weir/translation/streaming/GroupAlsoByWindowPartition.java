package dev.weir.translation.streaming;

import dev.weir.translation.StepFailure;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.TimerAdvance;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.LateDataUtils;
import org.apache.beam.runners.core.NullSideInputReader;
import org.apache.beam.runners.core.ReduceFnRunner;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.runners.core.metrics.CounterCell;
import org.apache.beam.runners.core.triggers.ExecutableTriggerStateMachine;
import org.apache.beam.runners.core.triggers.TriggerStateMachines;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.construction.TriggerTranslation;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.function.Function2;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * One partition of a streaming {@code GroupByKey} in one epoch, run by Beam's {@link
 * ReduceFnRunner} per key over state kept in the executor ({@link KeyedStateStore}): the epoch's
 * elements first, at the previous input watermark (late data is dropped as Beam's allowed
 * lateness says), then the new input watermark and the processing clock fire due timers, which
 * emit panes as the trigger decides. Only keys with elements or a timer due are visited (see
 * {@link KeyedStateStore}). The partition reports its earliest hold.
 */
final class GroupAlsoByWindowPartition
    implements Function2<Integer, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>>, Iterator<byte[]>> {

  /** Everything a partition needs, fixed for the epoch. */
  static final class Spec implements Serializable {
    String stepName;
    String runId;
    long epoch;
    /** The epoch the partitions' state is at: the last the step ran in. */
    long stateEpoch;
    WindowingStrategy<?, BoundedWindow> strategy;
    Coder<Object> keyCoder;
    Coder<Object> valueCoder;
    Coder<WindowedValue<Object>> elementCoder;
    Coder<WindowedValue<KV<Object, Iterable<Object>>>> outputCoder;
    SerializablePipelineOptions options;
    TimePolicies policies;
    Instant inputBefore;
    Instant inputNow;
    /** The epoch's clock: elements arrive at it, and it is the synchronized processing time. */
    Instant processingTime;
    /** The step's processing time, at which its processing-time timers fire. */
    Instant timerClock;
    PartitionReports<KeyedShuffle.PartitionReport> holds;
    /** Where the state is checkpointed, or null. */
    StateFiles files;
  }

  private final Spec spec;
  private final TimerAdvance timerAdvance;

  GroupAlsoByWindowPartition(Spec spec) {
    this.spec = spec;
    this.timerAdvance = new TimerAdvance(spec.policies, TimerAdvance.Batching.TOGETHER);
  }

  @Override
  public Iterator<byte[]> call(Integer partition, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
    KeyedStateStore.Partition state =
        KeyedStateStore.open(
            spec.runId,
            spec.stepName,
            partition,
            spec.epoch,
            spec.stateEpoch,
            KeyedStateStore.Codec.of(spec.keyCoder, spec.strategy.getWindowFn().windowCoder()),
            spec.files,
            false);
    List<WindowedValue<KV<Object, Iterable<Object>>>> out = new ArrayList<>();
    try {
      Map<ByteBuffer, List<WindowedValue<Object>>> byKey = new LinkedHashMap<>();
      while (input.hasNext()) {
        Tuple2<byte[], byte[]> element = input.next()._2();
        byKey.computeIfAbsent(ByteBuffer.wrap(element._1()), k -> new ArrayList<>())
            .add(CoderUtils.decodeFromByteArray(spec.elementCoder, element._2()));
      }
      ExecutableTriggerStateMachine trigger =
          ExecutableTriggerStateMachine.create(
              TriggerStateMachines.stateMachineForTrigger(TriggerTranslation.toProto(spec.strategy.getTrigger())));
      CounterCell dropped = new CounterCell(MetricName.named(ReduceFnRunner.class, "droppedDueToLateness"));
      for (Map.Entry<ByteBuffer, List<WindowedValue<Object>>> e : byKey.entrySet()) {
        KeyedStateStore.KeyState key =
            state.getOrCreate(e.getKey(), CoderUtils.decodeFromByteArray(spec.keyCoder, e.getKey().array()), spec.inputBefore);
        key.catchUp(spec.inputBefore, spec.processingTime);
        // Timers that fell due while the epoch's elements were on their way fire before they
        // arrive, so that their panes do not take in elements that came later.
        timerAdvance.beforeInput(key, new Runner(key, trigger, out)::fire, spec.processingTime);
        ReduceFnRunner<Object, Object, Iterable<Object>, BoundedWindow> runner = runner(key, key.trackedTimers(), trigger, out);
        runner.processElements(
            LateDataUtils.dropExpiredWindows(key.state.getKey(), e.getValue(), key.timers, spec.strategy, dropped));
        runner.persist();
      }
      // The keys that received elements, and those the index says have a timer due: no other
      // key can change in this epoch.
      for (ByteBuffer bytes : KeyedStateStore.toVisit(state, byKey.keySet(), spec.policies, spec.inputNow, spec.timerClock)) {
        KeyedStateStore.KeyState key = state.get(bytes);
        if (key == null) {
          continue;
        }
        key.catchUp(spec.inputBefore, spec.processingTime);
        advance(key, trigger, out);
        state.touch(bytes, key, false, false);
      }
      byte[][] encoded = new byte[out.size()][];
      for (int i = 0; i < encoded.length; i++) {
        encoded[i] = CoderUtils.encodeToByteArray(spec.outputCoder, out.get(i));
      }
      KeyedStateStore.commit(state, spec.epoch);
      spec.holds.add(new Tuple2<>(partition, KeyedShuffle.PartitionReport.of(state)));
      return java.util.Arrays.asList(encoded).iterator();
    } catch (Exception e) {
      throw new StepFailure(spec.stepName, e);
    }
  }

  private ReduceFnRunner<Object, Object, Iterable<Object>, BoundedWindow> runner(
      KeyedStateStore.KeyState key,
      TrackedTimerInternals timers,
      ExecutableTriggerStateMachine trigger,
      List<WindowedValue<KV<Object, Iterable<Object>>>> out) {
    return new ReduceFnRunner<>(
        key.state.getKey(),
        spec.strategy,
        trigger,
        key.state,
        timers,
        out::add,
        NullSideInputReader.empty(),
        SystemReduceFn.buffering(spec.valueCoder),
        spec.options.get());
  }

  /**
   * Moves one key to the new input watermark and then to the step's processing time, firing what
   * falls due in the order {@link TimerAdvance} says. The epoch's elements and its new watermark
   * arrive at the epoch's clock; the step's own clock comes last (so a window the watermark closes
   * in this epoch gets its elements in its on-time pane). The synchronized processing time stays
   * at the epoch's clock: a continuation trigger downstream of a processing-time one fires in the
   * next epoch, before the elements that epoch brings.
   */
  private void advance(
      KeyedStateStore.KeyState key,
      ExecutableTriggerStateMachine trigger,
      List<WindowedValue<KV<Object, Iterable<Object>>>> out)
      throws Exception {
    timerAdvance.advance(key, new Runner(key, trigger, out)::fire, spec.processingTime, spec.inputNow, spec.timerClock);
  }

  /** A key's ReduceFnRunner, made when the first timer falls due. */
  private final class Runner {
    private final KeyedStateStore.KeyState key;
    private final ExecutableTriggerStateMachine trigger;
    private final List<WindowedValue<KV<Object, Iterable<Object>>>> out;
    private final TrackedTimerInternals timers;
    private ReduceFnRunner<Object, Object, Iterable<Object>, BoundedWindow> runner;

    Runner(
        KeyedStateStore.KeyState key,
        ExecutableTriggerStateMachine trigger,
        List<WindowedValue<KV<Object, Iterable<Object>>>> out) {
      this.key = key;
      this.trigger = trigger;
      this.out = out;
      this.timers = key.trackedTimers();
    }

    void fire(List<TimerData> due) throws Exception {
      if (due.isEmpty()) {
        return;
      }
      if (runner == null) {
        runner = GroupAlsoByWindowPartition.this.runner(key, timers, trigger, out);
      }
      runner.onTimers(due);
      runner.persist();
    }
  }
}
