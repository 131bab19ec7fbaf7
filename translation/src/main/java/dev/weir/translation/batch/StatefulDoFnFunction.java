package dev.weir.translation.batch;

import dev.weir.translation.runtime.CurrentKeyContext;
import dev.weir.translation.runtime.KeyStepContext;
import dev.weir.translation.runtime.DoFnBundle;
import dev.weir.translation.runtime.DoFnSpec;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.TimerAdvance;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.DoFnRunners;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.runners.core.StatefulDoFnRunner;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.joda.time.Instant;
import scala.Tuple3;

/**
 * Runs a stateful DoFn in batch over one Spark partition whose elements arrive as (key hash, key
 * bytes, element), grouped by the hash of the Beam-encoded key and, within a key, in arrival
 * order. Each key gets in-memory state and timers for as long as its hash's run lasts:
 * one key, or the few whose hashes collide, so memory is bounded by their state.
 *
 * <p>The watermark is perfect: it stays at the beginning of time while a key's elements are
 * processed (so no element is late), then jumps to the end of time and every event-time timer
 * fires in timestamp order, including timers set while firing, and each window's state is
 * garbage-collected (with {@code @OnWindowExpiration}). Processing-time timers follow the
 * {@link TimePolicies}: with ALLOW they fire against the wall clock after each element; at the
 * end of input, FIRE_AND_QUIESCE fires the pending ones once, before the watermark jumps, and
 * ignores any they set.
 */
final class StatefulDoFnFunction
    implements FlatMapFunction<Iterator<Tuple3<Long, byte[], WindowedValue<Object>>>, WindowedValue<Object>> {
  private final DoFnSpec spec;
  private final TimerAdvance timerAdvance;

  StatefulDoFnFunction(DoFnSpec spec, TimePolicies policies) {
    this.spec = spec;
    this.timerAdvance = new TimerAdvance(policies, TimerAdvance.Batching.ONE_BY_ONE);
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<Tuple3<Long, byte[], WindowedValue<Object>>> input) {
    // The DoFn is set up only once the partition's first element is here: an empty partition
    // sets up none, and a task that Spark kills while it waits for its shuffle input (its job
    // failed elsewhere) has set up no instance that then sees no element. Once it has one, the
    // first element is processed before the input is asked again, which is where Spark checks
    // for a kill.
    if (!input.hasNext()) {
      return Collections.emptyIterator();
    }
    return new KeyedBundle(input.next(), input);
  }

  private final class KeyedBundle extends DoFnBundle {
    /** The partition's first element, until it is processed. */
    private Tuple3<Long, byte[], WindowedValue<Object>> first;
    private final Iterator<Tuple3<Long, byte[], WindowedValue<Object>>> input;
    private final DoFnRunner<Object, Object> bundleRunner;
    /**
     * The runner of every key, built once: Beam's runners read state and timers from their step
     * context at each access, so switching the context to a key is enough. Building them per key
     * cost a DoFn invoker and type resolution each, a tenth of Nexmark q3's time.
     */
    private final DoFnRunner<Object, Object> keyRunner;
    private final CurrentKeyContext currentKey = new CurrentKeyContext(bundleFinalizer());
    private Key current;
    /** The keys of the current run of one hash, in arrival order: {@link #current} alone, unless hashes collide. */
    private final List<Key> run = new ArrayList<>();
    private long runHash;

    @SuppressWarnings({"unchecked", "rawtypes"})
    KeyedBundle(Tuple3<Long, byte[], WindowedValue<Object>> first, Iterator<Tuple3<Long, byte[], WindowedValue<Object>>> input) {
      super(StatefulDoFnFunction.this.spec);
      this.first = first;
      this.input = input;
      bundleRunner = simpleRunner(new KeyStepContext(spec.stepName, null, null, bundleFinalizer()));
      keyRunner =
          DoFnRunners.defaultStatefulDoFnRunner(
              fn,
              spec.inputCoder,
              simpleRunner(currentKey),
              currentKey,
              spec.windowingStrategy,
              currentKey,
              (StatefulDoFnRunner.StateCleaner) currentKey,
              // With @RequiresTimeSortedInput the runner buffers a key's elements in its state
              // and hands them over in timestamp order as the watermark passes them: here at
              // the end of the key's input.
              DoFnSignatures.requiresTimeSortedInput(fn));
      startBundle(bundleRunner);
    }

    @Override
    protected boolean processNext() throws Exception {
      Tuple3<Long, byte[], WindowedValue<Object>> next = first;
      if (next != null) {
        first = null;
      } else if (input.hasNext()) {
        next = input.next();
      } else {
        return false;
      }
      if (current == null || !Arrays.equals(current.bytes, next._2())) {
        if (current != null && runHash != next._1()) {
          endRun();
        }
        runHash = next._1();
        current = null;
        for (Key key : run) {
          if (Arrays.equals(key.bytes, next._2())) {
            current = key;
            break;
          }
        }
        if (current == null) {
          current = new Key(next._2(), ((KV<?, ?>) next._3().getValue()).getKey());
          run.add(current);
        }
        current.select();
      }
      current.process(next._3());
      return true;
    }

    /** The end of input of each key of the run that ends. */
    private void endRun() throws Exception {
      for (Key key : run) {
        key.select();
        key.endOfInput();
      }
      run.clear();
    }

    @Override
    protected void finishInput() throws Exception {
      endRun();
      bundleRunner.finishBundle();
    }

    /** One key's state and timers, for as long as its elements last. */
    private final class Key {
      final byte[] bytes;
      final Object key;
      final InMemoryTimerInternals timers = new InMemoryTimerInternals();
      final TimerAdvance.KeyTimers keyTimers = TimerAdvance.inMemory(timers);
      final InMemoryStateInternals<Object> state;
      final StatefulDoFnRunner.CleanupTimer<Object> cleanupTimer;
      final StatefulDoFnRunner.StateCleaner<BoundedWindow> stateCleaner;

      @SuppressWarnings("unchecked")
      Key(byte[] bytes, Object key) throws Exception {
        this.bytes = bytes;
        this.key = key;
        // Processing-time timers are set relative to this clock, which starts at the wall clock.
        timers.advanceProcessingTime(Instant.now());
        this.state = InMemoryStateInternals.forKey(key);
        Coder<BoundedWindow> windowCoder =
            (Coder<BoundedWindow>) spec.windowingStrategy.getWindowFn().windowCoder();
        this.cleanupTimer = new StatefulDoFnRunner.TimeInternalsCleanupTimer<>(timers, spec.windowingStrategy);
        this.stateCleaner = new StatefulDoFnRunner.StateInternalsStateCleaner<>(fn, state, windowCoder);
      }

      /** Makes this the key that the step's runner reads state and timers of. */
      void select() {
        currentKey.set(state, timers, cleanupTimer, stateCleaner);
      }

      void process(WindowedValue<Object> element) throws Exception {
        keyRunner.processElement(element);
        // Processing-time timers that came due while the key's elements went by fire among them.
        timerAdvance.beforeInput(keyTimers, this::fire, Instant.now());
      }

      void endOfInput() throws Exception {
        // The clock's last tick (the in-memory clock fires a timer only once it has moved past
        // it, hence the millisecond), then the end of time.
        timerAdvance.advance(keyTimers, this::fire, Instant.now().plus(1), BoundedWindow.TIMESTAMP_MAX_VALUE, null);
      }

      private void fire(List<TimerData> due) {
        for (TimerData timer : due) {
          KeyStepContext.fire(keyRunner, key, timer);
        }
      }
    }
  }
}
