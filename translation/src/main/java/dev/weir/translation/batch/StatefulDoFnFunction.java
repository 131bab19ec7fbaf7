package dev.weir.translation.batch;

import dev.weir.translation.TimePolicies;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.DoFnRunners;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.StatefulDoFnRunner;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * Runs a stateful DoFn in batch over one Spark partition whose elements arrive grouped by key
 * (the Beam-encoded key) and, within a key, sorted by timestamp. Each key gets in-memory state
 * and timers for as long as its elements last, so memory is bounded by one key's state.
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
    implements MapPartitionsFunction<Tuple2<byte[], WindowedValue<Object>>, WindowedValue<Object>> {
  private final DoFnSpec spec;
  private final TimePolicies policies;

  StatefulDoFnFunction(DoFnSpec spec, TimePolicies policies) {
    this.spec = spec;
    this.policies = policies;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<Tuple2<byte[], WindowedValue<Object>>> input) {
    return new KeyedBundle(input);
  }

  private final class KeyedBundle extends DoFnBundle {
    private final Iterator<Tuple2<byte[], WindowedValue<Object>>> input;
    private final DoFnRunner<Object, Object> bundleRunner;
    private Key current;

    KeyedBundle(Iterator<Tuple2<byte[], WindowedValue<Object>>> input) {
      super(StatefulDoFnFunction.this.spec);
      this.input = input;
      bundleRunner = simpleRunner(new KeyStepContext(spec.stepName, null, null, bundleFinalizer()));
      startBundle(bundleRunner);
    }

    @Override
    protected boolean processNext() throws Exception {
      if (!input.hasNext()) {
        return false;
      }
      Tuple2<byte[], WindowedValue<Object>> next = input.next();
      if (current == null || !Arrays.equals(current.bytes, next._1())) {
        if (current != null) {
          current.endOfInput();
        }
        current = new Key(next._1(), ((KV<?, ?>) next._2().getValue()).getKey());
      }
      current.process(next._2());
      return true;
    }

    @Override
    protected void finishInput() throws Exception {
      if (current != null) {
        current.endOfInput();
      }
      bundleRunner.finishBundle();
    }

    /** One key's state, timers and runner. */
    private final class Key {
      final byte[] bytes;
      final Object key;
      final InMemoryTimerInternals timers = new InMemoryTimerInternals();
      final DoFnRunner<Object, Object> runner;

      @SuppressWarnings({"unchecked", "rawtypes"})
      Key(byte[] bytes, Object key) throws Exception {
        this.bytes = bytes;
        this.key = key;
        // Processing-time timers are set relative to this clock, which starts at the wall clock.
        timers.advanceProcessingTime(Instant.now());
        InMemoryStateInternals<Object> state = InMemoryStateInternals.forKey(key);
        KeyStepContext context = new KeyStepContext(spec.stepName, state, timers, bundleFinalizer());
        Coder<BoundedWindow> windowCoder =
            (Coder<BoundedWindow>) spec.windowingStrategy.getWindowFn().windowCoder();
        this.runner =
            DoFnRunners.defaultStatefulDoFnRunner(
                fn,
                spec.inputCoder,
                simpleRunner(context),
                context,
                spec.windowingStrategy,
                new StatefulDoFnRunner.TimeInternalsCleanupTimer<>(timers, spec.windowingStrategy),
                new StatefulDoFnRunner.StateInternalsStateCleaner<>(fn, state, windowCoder),
                // The input arrives sorted by timestamp already; this only tells the runner
                // that @RequiresTimeSortedInput is honoured.
                DoFnSignatures.requiresTimeSortedInput(fn));
      }

      void process(WindowedValue<Object> element) throws Exception {
        runner.processElement(element);
        if (policies.processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW) {
          timers.advanceProcessingTime(Instant.now());
          fireAll(TimeDomainQueue.PROCESSING);
        }
      }

      void endOfInput() throws Exception {
        boolean processingTime = policies.processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW;
        if (processingTime) {
          // Timers due by now fire whatever the end-of-input policy: the clock's last tick. The
          // in-memory clock fires a timer only once it has moved past it, hence the millisecond.
          timers.advanceProcessingTime(Instant.now().plus(1));
          fireAll(TimeDomainQueue.PROCESSING);
        }
        if (processingTime
            && policies.processingTimeEndOfInput() == TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE) {
          timers.advanceProcessingTime(BoundedWindow.TIMESTAMP_MAX_VALUE);
          List<TimerData> pending = new ArrayList<>();
          for (TimerData t = timers.removeNextProcessingTimer(); t != null; t = timers.removeNextProcessingTimer()) {
            pending.add(t);
          }
          for (TimerData t : pending) {
            fire(t);
          }
        }
        timers.advanceInputWatermark(BoundedWindow.TIMESTAMP_MAX_VALUE);
        fireAll(TimeDomainQueue.EVENT);
      }

      private void fireAll(TimeDomainQueue queue) throws Exception {
        for (TimerData t = queue.next(timers); t != null; t = queue.next(timers)) {
          fire(t);
        }
      }

      private void fire(TimerData timer) {
        KeyStepContext.fire(runner, key, timer);
      }
    }

  }

  /** Which of a key's timers are due. */
  private enum TimeDomainQueue {
    EVENT {
      @Override
      TimerData next(InMemoryTimerInternals timers) {
        return timers.removeNextEventTimer();
      }
    },
    PROCESSING {
      @Override
      TimerData next(InMemoryTimerInternals timers) {
        return timers.removeNextProcessingTimer();
      }
    };

    abstract TimerData next(InMemoryTimerInternals timers);
  }
}
