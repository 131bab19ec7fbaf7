package dev.weir.translation.streaming;

import dev.weir.encoders.CoderBytes;
import dev.weir.translation.StepFailure;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.TimerAdvance;
import dev.weir.translation.streaming.state.KeyState;
import dev.weir.translation.streaming.state.KeyedPartition;
import dev.weir.translation.streaming.state.KeyedStateStore;
import dev.weir.translation.streaming.state.TrackedTimerInternals;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
import org.apache.beam.sdk.util.WindowedValueReceiver;
import org.apache.beam.sdk.util.construction.TriggerTranslation;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.function.Function2;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.Tuple2;

/**
 * One partition of a streaming {@code GroupByKey} in one epoch, run by Beam's {@link
 * ReduceFnRunner} per key over state kept in the executor ({@link KeyedStateStore}): a key's
 * elements first, at the previous input watermark (late data is dropped as Beam's allowed
 * lateness says), then the new input watermark and the processing clock fire its due timers,
 * which emit panes as the trigger decides. Only keys with elements or a timer due are visited
 * (see {@link KeyedPartition}). The partition reports its earliest hold.
 */
final class GroupAlsoByWindowPartition
    implements Function2<Integer, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>>, Iterator<byte[]>> {

  /** Everything a partition needs, fixed for the epoch. */
  static final class Spec implements Serializable {
    /** The epoch this run of the step is in. */
    KeyedEpoch run;
    String stepName;
    WindowingStrategy<?, BoundedWindow> strategy;
    Coder<Object> keyCoder;
    /** What the step keeps per key and window, and what it emits: a buffer of the elements, or an accumulator. */
    SystemReduceFn<Object, Object, ?, Object, BoundedWindow> reduceFn;
    Coder<WindowedValue<Object>> elementCoder;
    Coder<WindowedValue<KV<Object, Object>>> outputCoder;
    SerializablePipelineOptions options;
    TimePolicies policies;
    /**
     * What a combining step runs per key instead of {@link #reduceFn}'s {@code ReduceFnRunner}
     * when each window fires once, at its end; null otherwise.
     */
    @Nullable EndOfWindowCombining endOfWindow;
  }

  private final Spec spec;
  private final TimerAdvance timerAdvance;

  GroupAlsoByWindowPartition(Spec spec) {
    this.spec = spec;
    this.timerAdvance = new TimerAdvance(spec.policies, TimerAdvance.Batching.TOGETHER);
  }

  @Override
  public Iterator<byte[]> call(Integer partition, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
    try {
      KeyedPartition state =
          KeyedStateStore.open(
              spec.run.backend(),
              spec.run.runId(),
              spec.stepName,
              partition,
              spec.run.epoch(),
              spec.run.stateEpoch(),
              KeyedStateStore.Codec.of(spec.keyCoder, spec.strategy.getWindowFn().windowCoder()),
              spec.run.files(),
              false);
      return new Epoch(partition, state, input);
    } catch (Exception e) {
      throw new StepFailure(spec.stepName, e);
    }
  }

  /**
   * The partition's epoch, a key at a time: each key with elements, then each other key with a
   * timer due (from the index, as the epoch began: no other key can change in this epoch). A key's
   * panes are encoded as they are pulled, and the state is committed after the last.
   */
  private final class Epoch implements Iterator<byte[]> {
    private final int partition;
    private final KeyedPartition state;
    private final Iterator<KeyGroups.Group> groups;
    private final Iterator<ByteBuffer> due;
    private final ExecutableTriggerStateMachine trigger;
    private final CounterCell dropped = new CounterCell(MetricName.named(ReduceFnRunner.class, "droppedDueToLateness"));
    private final Panes out = new Panes();
    private final CoderBytes<Object> keyBytes = CoderBytes.of(spec.keyCoder);
    private final CoderBytes<WindowedValue<Object>> elementBytes = CoderBytes.of(spec.elementCoder);
    private int next;
    private boolean committed;

    Epoch(int partition, KeyedPartition state, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) throws Exception {
      this.partition = partition;
      this.state = state;
      this.due = KeyedStateStore.due(state, spec.policies, spec.run.inputNow(), spec.run.timerClock());
      this.groups = KeyGroups.of(input, spec.run.backend().groupsKeys());
      this.trigger =
          ExecutableTriggerStateMachine.create(
              TriggerStateMachines.stateMachineForTrigger(TriggerTranslation.toProto(spec.strategy.getTrigger())));
    }

    @Override
    public boolean hasNext() {
      try {
        while (next == out.encoded.size() && !committed) {
          out.encoded.clear();
          next = 0;
          step();
        }
      } catch (Exception e) {
        throw new StepFailure(spec.stepName, e);
      }
      return next < out.encoded.size();
    }

    @Override
    public byte[] next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      return out.encoded.get(next++);
    }

    private void step() throws Exception {
      if (groups.hasNext()) {
        KeyGroups.Group group = groups.next();
        List<WindowedValue<Object>> elements = new ArrayList<>(group.elements().size());
        for (byte[] element : group.elements()) {
          elements.add(elementBytes.decode(element));
        }
        KeyState key =
            state.getOrCreate(group.key(), keyBytes.decode(group.key().array()), spec.run.inputBefore());
        key.catchUp(spec.run.inputBefore(), spec.run.processingTime());
        // Timers that fell due while the epoch's elements were on their way fire before they
        // arrive, so that their panes do not take in elements that came later.
        timerAdvance.beforeInput(key, new Runner(key, trigger, out)::fire, spec.run.processingTime());
        Iterable<WindowedValue<Object>> live =
            LateDataUtils.dropExpiredWindows(key.state.getKey(), elements, key.timers, spec.strategy, dropped);
        if (spec.endOfWindow != null) {
          spec.endOfWindow.processElements(key, live);
        } else {
          ReduceFnRunner<Object, Object, Object, BoundedWindow> runner = runner(key, key.trackedTimers(), trigger, out);
          runner.processElements(live);
          runner.persist();
        }
        advance(key, trigger, out);
        state.touch(group.key(), key, false, false);
        return;
      }
      if (due.hasNext()) {
        ByteBuffer bytes = due.next();
        KeyState key = state.get(bytes);
        if (key != null && !state.touchedThisEpoch(key)) {
          key.catchUp(spec.run.inputBefore(), spec.run.processingTime());
          advance(key, trigger, out);
          state.touch(bytes, key, false, false);
        }
        return;
      }
      KeyedStateStore.commit(spec.run.backend(), state, spec.run.epoch());
      spec.run.holds().add(new Tuple2<>(partition, KeyedShuffle.PartitionReport.of(state, out.emitted)));
      committed = true;
    }
  }

  /**
   * Where a partition's panes go: each encoded as it is emitted. A combining step's pane can be
   * its key and window's accumulator itself (a CombineFn whose output is its accumulator), which
   * the key's next input, in accumulating mode, merges into in place.
   */
  private final class Panes implements WindowedValueReceiver<KV<Object, Object>> {
    private final List<byte[]> encoded = new ArrayList<>();
    private final CoderBytes<WindowedValue<KV<Object, Object>>> bytes = CoderBytes.of(spec.outputCoder);
    /** Panes so far in this epoch, handed on or not. */
    private long emitted;

    @Override
    public void output(WindowedValue<KV<Object, Object>> pane) {
      try {
        encoded.add(bytes.encode(pane));
        emitted++;
      } catch (Exception e) {
        throw new StepFailure(spec.stepName, e);
      }
    }
  }

  private ReduceFnRunner<Object, Object, Object, BoundedWindow> runner(
      KeyState key,
      TrackedTimerInternals timers,
      ExecutableTriggerStateMachine trigger,
      Panes out) {
    return new ReduceFnRunner<>(
        key.state.getKey(),
        spec.strategy,
        trigger,
        key.state,
        timers,
        out,
        NullSideInputReader.empty(),
        spec.reduceFn,
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
      KeyState key,
      ExecutableTriggerStateMachine trigger,
      Panes out)
      throws Exception {
    timerAdvance.advance(key, new Runner(key, trigger, out)::fire, spec.run.processingTime(), spec.run.inputNow(), spec.run.timerClock());
  }

  /** A key's ReduceFnRunner, made when the first timer falls due. */
  private final class Runner {
    private final KeyState key;
    private final ExecutableTriggerStateMachine trigger;
    private final Panes out;
    private final TrackedTimerInternals timers;
    private ReduceFnRunner<Object, Object, Object, BoundedWindow> runner;

    Runner(
        KeyState key,
        ExecutableTriggerStateMachine trigger,
        Panes out) {
      this.key = key;
      this.trigger = trigger;
      this.out = out;
      this.timers = key.trackedTimers();
    }

    void fire(List<TimerData> due) throws Exception {
      if (due.isEmpty()) {
        return;
      }
      if (spec.endOfWindow != null) {
        spec.endOfWindow.onTimers(key, due, out);
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
