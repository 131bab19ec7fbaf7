package dev.weir.translation.streaming;

import dev.weir.encoders.CoderBytes;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.DoFnBundle;
import dev.weir.translation.runtime.CurrentKeyContext;
import dev.weir.translation.runtime.DoFnSpec;
import dev.weir.translation.runtime.KeyStepContext;
import dev.weir.translation.runtime.TimerAdvance;
import dev.weir.translation.streaming.state.KeyState;
import dev.weir.translation.streaming.state.KeyedPartition;
import dev.weir.translation.streaming.state.KeyedStateStore;
import dev.weir.translation.streaming.state.TrackedTimerInternals;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.DoFnRunners;
import org.apache.beam.runners.core.StatefulDoFnRunner;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.function.Function2;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * One partition of a streaming stateful ParDo in one epoch, as one Beam bundle. Each key's state
 * and timers live in {@link KeyedStateStore} across epochs. A key's elements are processed first,
 * at the previous input watermark (runners-core's {@link StatefulDoFnRunner} drops those of
 * expired windows); then the key moves to the new input watermark and processing time, and due
 * timers fire in time order, also those set while firing; window expiry clears state (with
 * {@code @OnWindowExpiration}). The partition reports its earliest hold: the pending timers'
 * output timestamps.
 */
final class StatefulParDoPartition
    implements Function2<Integer, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>>, Iterator<byte[]>> {

  /** Everything a partition needs, fixed for the epoch. */
  static final class Spec implements Serializable {
    /** The epoch this run of the step is in. */
    KeyedEpoch run;
    DoFnSpec dofn;
    Coder<Object> keyCoder;
    Coder<WindowedValue<Object>> elementCoder;
    Coder<WindowedValue<Object>> outputCoder;
    TimePolicies policies;
  }

  private final Spec plan;
  private final TimerAdvance timerAdvance;

  StatefulParDoPartition(Spec plan) {
    this.plan = plan;
    this.timerAdvance = new TimerAdvance(plan.policies, TimerAdvance.Batching.ONE_BY_ONE);
  }

  @Override
  public Iterator<byte[]> call(Integer partition, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
    KeyedPartition state =
        KeyedStateStore.open(
            plan.run.backend(),
            plan.run.runId(),
            plan.dofn.stepName,
            partition,
            plan.run.epoch(),
            plan.run.stateEpoch(),
            KeyedStateStore.Codec.of(plan.keyCoder, plan.dofn.windowingStrategy.getWindowFn().windowCoder()),
            plan.run.files(),
            true);
    Epoch bundle;
    try {
      bundle = new Epoch(partition, state, input);
    } catch (Exception e) {
      throw new dev.weir.translation.StepFailure(plan.dofn.stepName, e);
    }
    CoderBytes<WindowedValue<Object>> outputBytes = CoderBytes.of(plan.outputCoder);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return bundle.hasNext();
      }

      @Override
      public byte[] next() {
        try {
          return outputBytes.encode(bundle.next());
        } catch (Exception e) {
          throw new IllegalStateException("Step '" + plan.dofn.stepName + "': could not encode an output", e);
        }
      }
    };
  }

  /**
   * The partition's epoch as one bundle, a key at a time: each key with elements (its elements,
   * then its timers), then each other key with a timer due (from the index, as the epoch began:
   * no other key can change in this epoch).
   */
  private final class Epoch extends DoFnBundle {
    private final int partition;
    private final KeyedPartition state;
    private final Iterator<KeyGroups.Group> groups;
    private final Iterator<ByteBuffer> due;
    private final DoFnRunner<Object, Object> bundleRunner;
    /**
     * The runner of every key, built once: Beam's runners read state and timers from their step
     * context at each access, so pointing the context at a key is enough (keys are worked on one
     * at a time). Building one per key cost a DoFn invoker and type resolution each.
     */
    private final DoFnRunner<Object, Object> keyRunner;
    private final CurrentKeyContext currentKey = new CurrentKeyContext(bundleFinalizer());
    private final CoderBytes<WindowedValue<Object>> elementBytes = CoderBytes.of(plan.elementCoder);

    @SuppressWarnings({"unchecked", "rawtypes"})
    Epoch(int partition, KeyedPartition state, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) throws Exception {
      super(plan.dofn);
      this.partition = partition;
      this.state = state;
      this.groups = KeyGroups.of(input, plan.run.backend().groupsKeys());
      this.due = KeyedStateStore.due(state, plan.policies, plan.run.inputNow(), plan.run.timerClock());
      this.bundleRunner = simpleRunner(new KeyStepContext(plan.dofn.stepName, null, null, bundleFinalizer()));
      this.keyRunner =
          DoFnRunners.defaultStatefulDoFnRunner(
              fn,
              plan.dofn.inputCoder,
              simpleRunner(currentKey),
              currentKey,
              (WindowingStrategy<?, BoundedWindow>) plan.dofn.windowingStrategy,
              currentKey,
              (StatefulDoFnRunner.StateCleaner) currentKey,
              DoFnSignatures.requiresTimeSortedInput(fn));
      startBundle(bundleRunner);
    }

    @Override
    protected boolean processNext() throws Exception {
      if (groups.hasNext()) {
        KeyGroups.Group group = groups.next();
        Key key = null;
        for (byte[] element : group.elements()) {
          WindowedValue<Object> value = elementBytes.decode(element);
          if (key == null) {
            key = key(group.key(), value);
          }
          key.runner().processElement(value);
        }
        advance(group.key(), key.keyState, key);
        state.touch(group.key(), key.keyState, true, true);
        return true;
      }
      if (!due.hasNext()) {
        return false;
      }
      ByteBuffer bytes = due.next();
      KeyState keyState = state.get(bytes);
      if (keyState != null && !state.touchedThisEpoch(keyState)) {
        keyState.catchUp(plan.run.inputBefore(), plan.run.processingTime());
        advance(bytes, keyState, null);
        state.touch(bytes, keyState, true, true);
      }
      return true;
    }

    @Override
    protected void finishInput() throws Exception {
      bundleRunner.finishBundle();
      KeyedStateStore.commit(plan.run.backend(), state, plan.run.epoch());
      plan.run.holds().add(new Tuple2<>(partition, KeyedShuffle.PartitionReport.of(state, emitted())));
    }

    /** The key's runner for this epoch, its state created at the previous watermark if new. */
    private Key key(ByteBuffer bytes, WindowedValue<Object> element) throws Exception {
      KeyState keyState = state.getOrCreate(bytes, ((KV<?, ?>) element.getValue()).getKey(), plan.run.inputBefore());
      keyState.catchUp(plan.run.inputBefore(), plan.run.processingTime());
      Key key = new Key(keyState);
      // Timers that fell due before the epoch's elements arrived fire first: processing-time
      // ones due at the epoch's clock, event-time ones the last epoch's elements set (below).
      timerAdvance.beforeInput(keyState, new Firing(keyState, key, List.of()), plan.run.processingTime());
      key.eventTimersBefore.putAll(keyState.pendingTimers);
      return key;
    }

    /**
     * Moves one key to the new watermark and then to the step's processing time, and fires its
     * due timers one by one in the order {@link TimerAdvance} says, as a grouping does.
     */
    private void advance(ByteBuffer bytes, KeyState keyState, @Nullable Key key) throws Exception {
      TrackedTimerInternals timers = keyState.trackedTimers();
      keyState.deferredHold = null;
      Firing firing = new Firing(keyState, key, key == null ? List.of() : key.eventTimersSetByElements());
      timerAdvance.advance(keyState, firing, plan.run.processingTime(), plan.run.inputNow(), plan.run.timerClock());
      // An event-time timer that this epoch's elements set fires in the next epoch at the
      // earliest, as the DirectRunner delivers a timer in a bundle after the one that set it:
      // the elements' outputs reach the steps downstream, whose processing-time triggers may fire
      // on them, before the timer's callback runs and its hold is released. Until then the
      // timer holds the output watermark, also one without an output timestamp: the run cannot
      // end before it fires.
      for (TimerData t : firing.deferred) {
        if (setSince(keyState, t)) {
          continue;
        }
        timers.setTimer(t);
        Instant hold = t.getOutputTimestamp() != null && t.getOutputTimestamp().isBefore(t.getTimestamp())
            ? t.getOutputTimestamp()
            : t.getTimestamp();
        if (keyState.deferredHold == null || hold.isBefore(keyState.deferredHold)) {
          keyState.deferredHold = hold;
        }
      }
    }

    /** Whether a timer that fired since {@code deferred} was taken out set its id again. */
    private boolean setSince(KeyState keyState, TimerData deferred) {
      for (TimerData t : keyState.pendingTimers.values()) {
        if (t.getNamespace().equals(deferred.getNamespace())
            && t.getTimerId().equals(deferred.getTimerId())
            && t.getTimerFamilyId().equals(deferred.getTimerFamilyId())) {
          return true;
        }
      }
      return false;
    }

    /**
     * Fires a key's due timers through its runner, made for the first one; defers the event-time
     * timers that this epoch's elements set (see {@link #advance}).
     */
    private final class Firing implements TimerAdvance.Firing {
      private final KeyState keyState;
      private @Nullable Key key;
      private final List<TimerData> setByElements;
      final List<TimerData> deferred = new ArrayList<>();

      Firing(KeyState keyState, @Nullable Key key, List<TimerData> setByElements) {
        this.keyState = keyState;
        this.key = key;
        this.setByElements = setByElements;
      }

      @Override
      public void fire(List<TimerData> due) {
        for (TimerData t : due) {
          if (setByElements.contains(t)) {
            deferred.add(t);
            continue;
          }
          if (key == null) {
            key = new Key(keyState);
          }
          key.fire(t);
        }
      }
    }

    /** One key in this epoch. */
    private final class Key {
      final KeyState keyState;
      final StatefulDoFnRunner.CleanupTimer<Object> cleanupTimer;
      final StatefulDoFnRunner.StateCleaner<BoundedWindow> stateCleaner;
      /** The key's pending timers before the epoch's first element for it, by id. */
      final Map<String, TimerData> eventTimersBefore = new HashMap<>();

      @SuppressWarnings("unchecked")
      Key(KeyState keyState) {
        this.keyState = keyState;
        WindowingStrategy<?, BoundedWindow> strategy = (WindowingStrategy<?, BoundedWindow>) plan.dofn.windowingStrategy;
        Coder<BoundedWindow> windowCoder = (Coder<BoundedWindow>) strategy.getWindowFn().windowCoder();
        this.cleanupTimer = new StatefulDoFnRunner.TimeInternalsCleanupTimer<>(keyState.trackedTimers(), strategy);
        this.stateCleaner = new StatefulDoFnRunner.StateInternalsStateCleaner<>(fn, keyState.state, windowCoder);
      }

      /** The shared runner, pointed at this key. */
      DoFnRunner<Object, Object> runner() {
        currentKey.set(keyState.state, keyState.trackedTimers(), cleanupTimer, stateCleaner);
        return keyRunner;
      }

      /** The event-time timers the epoch's elements set (or set again) and no timer fired since. */
      List<TimerData> eventTimersSetByElements() {
        List<TimerData> set = new ArrayList<>();
        for (Map.Entry<String, TimerData> e : keyState.pendingTimers.entrySet()) {
          if (e.getValue().getDomain() == TimeDomain.EVENT_TIME && !e.getValue().equals(eventTimersBefore.get(e.getKey()))) {
            set.add(e.getValue());
          }
        }
        return set;
      }

      void fire(TimerData timer) {
        KeyStepContext.fire(runner(), keyState.state.getKey(), timer);
      }
    }
  }
}
