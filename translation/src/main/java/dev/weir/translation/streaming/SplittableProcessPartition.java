package dev.weir.translation.streaming;

import dev.weir.translation.runtime.DoFnBundle;
import dev.weir.translation.runtime.DoFnSpec;
import dev.weir.translation.runtime.KeyStepContext;
import dev.weir.translation.streaming.state.KeyState;
import dev.weir.translation.streaming.state.KeyedPartition;
import dev.weir.translation.streaming.state.KeyedStateStore;
import dev.weir.translation.streaming.state.TrackedTimerInternals;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.KeyedWorkItem;
import org.apache.beam.runners.core.KeyedWorkItems;
import org.apache.beam.runners.core.OutputAndTimeBoundedSplittableProcessElementInvoker;
import org.apache.beam.runners.core.SplittableParDoViaKeyedWorkItems;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.CausedByDrain;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.joda.time.Duration;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * One partition of a streaming splittable DoFn that is unbounded per element, in one epoch.
 * Every (element, restriction) pair Beam's expansion keys uniquely is a work item of runners-
 * core's {@code ProcessFn}: its first call processes the restriction for at most {@code
 * --epochMaxReadTimeMillis} (or {@link #MAX_OUTPUTS} outputs), then checkpoints it; the residual
 * restriction, the watermark estimator's state and a watermark hold at the estimator's watermark
 * wait in the key's state ({@link KeyedStateStore}, checkpointed like any keyed state), and a
 * processing-time timer resumes it in a later epoch, until the DoFn says stop. Bundle
 * finalizers run once the epoch is committed ({@link BundleFinalizers}). Draining delivers the
 * resume timers as drain timers: the work items process once more and stop.
 */
final class SplittableProcessPartition
    implements Function2<Integer, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>>, Iterator<byte[]>> {
  /** A checkpoint after this many outputs, as the DirectRunner's bound. */
  static final int MAX_OUTPUTS = 10_000;

  /** Everything a partition needs, fixed for the epoch. */
  static final class Spec implements Serializable {
    /** The epoch this run of the step is in. */
    KeyedEpoch run;
    DoFnSpec processFn;
    Coder<WindowedValue<Object>> elementCoder;
    Coder<WindowedValue<Object>> outputCoder;
    long maxReadTimeMillis;
    boolean draining;
  }

  private final Spec plan;

  SplittableProcessPartition(Spec plan) {
    this.plan = plan;
  }

  @Override
  public Iterator<byte[]> call(Integer partition, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
    KeyedPartition state =
        KeyedStateStore.open(
            plan.run.backend(),
            plan.run.runId(),
            plan.processFn.stepName,
            partition,
            plan.run.epoch(),
            plan.run.stateEpoch(),
            KeyedStateStore.Codec.of(
                (Coder) ByteArrayCoder.of(), plan.processFn.windowingStrategy.getWindowFn().windowCoder()),
            plan.run.files(),
            false);
    BundleFinalizers.runCommitted(plan.run.runId(), plan.processFn.stepName, partition, plan.run.epoch() - 1);
    Epoch bundle = new Epoch(partition, state, input);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return bundle.hasNext();
      }

      @Override
      public byte[] next() {
        try {
          return CoderUtils.encodeToByteArray(plan.outputCoder, bundle.next());
        } catch (Exception e) {
          throw new IllegalStateException("Step '" + plan.processFn.stepName + "': could not encode an output", e);
        }
      }
    };
  }

  private final class Epoch extends DoFnBundle {
    private final int partition;
    private final KeyedPartition state;
    private final Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input;
    private final DoFnRunner<Object, Object> runner;
    private final ScheduledExecutorService checkpoints;
    private final Map<ByteBuffer, KeyState> touched = new LinkedHashMap<>();
    private final List<DoFn.BundleFinalizer.Callback> finalizers = new ArrayList<>();
    private Iterator<ByteBuffer> resuming;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Epoch(int partition, KeyedPartition state, Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
      super(plan.processFn);
      this.partition = partition;
      this.state = state;
      this.input = input;
      // Owned by this task: the invoker schedules each work item's checkpoint on it.
      this.checkpoints =
          Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weir-sdf-checkpoint-" + plan.processFn.stepName);
            t.setDaemon(true);
            return t;
          });
      TaskContext task = TaskContext.get();
      if (task != null) {
        // Stopped with the task, however it ends (finishInput stops it too when it succeeds).
        task.addTaskCompletionListener((TaskContext c) -> checkpoints.shutdownNow());
      }
      SplittableParDoViaKeyedWorkItems.ProcessFn processFn = (SplittableParDoViaKeyedWorkItems.ProcessFn) fn;
      processFn.setStateInternalsFactory(key -> keyState((byte[]) key).state);
      processFn.setTimerInternalsFactory(key -> keyState((byte[]) key).trackedTimers());
      processFn.setSideInputReader(sideInputReader());
      processFn.setProcessElementInvoker(
          new OutputAndTimeBoundedSplittableProcessElementInvoker<>(
              processFn.getFn(),
              plan.processFn.options.get(),
              this,
              (TupleTag) plan.processFn.mainOutputTag(),
              sideInputReader(),
              checkpoints,
              MAX_OUTPUTS,
              Duration.millis(plan.maxReadTimeMillis),
              this::bundleFinalizer));
      this.runner = simpleRunner(new KeyStepContext(plan.processFn.stepName, null, null, bundleFinalizer()));
      startBundle(runner);
    }

    /** The key's state and timers, created at the epoch's previous input watermark if new. */
    private KeyState keyState(byte[] key) {
      ByteBuffer bytes = ByteBuffer.wrap(key);
      KeyState keyState = touched.get(bytes);
      if (keyState == null) {
        try {
          keyState = state.getOrCreate(bytes, key, plan.run.inputBefore());
          keyState.catchUp(plan.run.inputBefore(), plan.run.processingTime());
        } catch (Exception e) {
          throw new IllegalStateException("Step '" + plan.processFn.stepName + "': could not open a work item's state", e);
        }
        touched.put(bytes, keyState);
      }
      return keyState;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    protected boolean processNext() throws Exception {
      if (input.hasNext()) {
        WindowedValue<Object> element = CoderUtils.decodeFromByteArray(plan.elementCoder, input.next()._2()._2());
        KV<byte[], Object> keyed = (KV<byte[], Object>) element.getValue();
        keyState(keyed.getKey());
        for (WindowedValue<Object> single : element.withValue(keyed.getValue()).explodeWindows()) {
          KeyedWorkItem<byte[], Object> item = KeyedWorkItems.elementsWorkItem(keyed.getKey(), List.of(single));
          runner.processElement((WindowedValue) WindowedValues.valueInGlobalWindow(item));
        }
        return true;
      }
      if (resuming == null) {
        // Work items whose resume timer is due at this epoch's processing time (all of them when
        // draining).
        Instant clock = plan.draining ? BoundedWindow.TIMESTAMP_MAX_VALUE : plan.run.processingTime();
        List<ByteBuffer> due = new ArrayList<>();
        state.due(plan.run.inputBefore(), clock).forEachRemaining(due::add);
        resuming = new java.util.LinkedHashSet<>(due).iterator();
      }
      if (!resuming.hasNext()) {
        return false;
      }
      resume(resuming.next());
      return true;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void resume(ByteBuffer bytes) throws Exception {
      KeyState existing = state.get(bytes);
      if (existing == null) {
        return;
      }
      byte[] key = (byte[]) existing.state.getKey();
      KeyState keyState = keyState(key);
      TrackedTimerInternals timers = keyState.trackedTimers();
      if (plan.draining) {
        keyState.advanceClock(BoundedWindow.TIMESTAMP_MAX_VALUE);
      }
      List<TimerData> due = new ArrayList<>();
      for (TimerData t = timers.removeNext(TimeDomain.PROCESSING_TIME); t != null; t = timers.removeNext(TimeDomain.PROCESSING_TIME)) {
        due.add(t);
      }
      for (TimerData timer : due) {
        TimerData delivered =
            plan.draining
                ? TimerData.of(timer.getTimerId(), timer.getTimerFamilyId(), timer.getNamespace(), timer.getTimestamp(),
                    timer.getOutputTimestamp(), timer.getDomain(), CausedByDrain.CAUSED_BY_DRAIN)
                : timer;
        KeyedWorkItem<byte[], Object> item = KeyedWorkItems.timersWorkItem(key, List.of(delivered));
        runner.processElement((WindowedValue) WindowedValues.valueInGlobalWindow(item));
      }
    }

    @Override
    protected void finishInput() throws Exception {
      runner.finishBundle();
      checkpoints.shutdownNow();
      for (Map.Entry<ByteBuffer, KeyState> e : touched.entrySet()) {
        // Pending resume timers keep a work item; its hold (the estimator's watermark, in state)
        // holds the step's output watermark, not the timers' processing-time timestamps.
        state.touch(e.getKey(), e.getValue(), false, true);
      }
      KeyedStateStore.commit(plan.run.backend(), state, plan.run.epoch());
      BundleFinalizers.afterCommit(plan.run.runId(), plan.processFn.stepName, partition, plan.run.epoch(), finalizers);
      plan.run.holds().add(new Tuple2<>(partition, KeyedShuffle.PartitionReport.of(state, emitted())));
    }

    /** Finalizers run once this epoch is committed, not when the task ends. */
    @Override
    protected DoFn.BundleFinalizer bundleFinalizer() {
      return (Instant expiry, DoFn.BundleFinalizer.Callback callback) -> finalizers.add(callback);
    }
  }
}
