package dev.weir.translation.runtime;

import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.runners.core.TimerInternals.TimerData;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a stateful DoFn's runner sees of one key: its state, its timers and the bundle's
 * finalizer. Without a key (the bundle's own runner, for {@code @StartBundle} and
 * {@code @FinishBundle}) state and timers are an error naming the step. Shared by batch and
 * streaming stateful ParDo.
 */
public final class KeyStepContext implements StepContext {
  private final String stepName;
  private final @Nullable StateInternals state;
  private final @Nullable TimerInternals timers;
  private final DoFn.BundleFinalizer finalizer;

  public KeyStepContext(
      String stepName, @Nullable StateInternals state, @Nullable TimerInternals timers, DoFn.BundleFinalizer finalizer) {
    this.stepName = stepName;
    this.state = state;
    this.timers = timers;
    this.finalizer = finalizer;
  }

  @Override
  public StateInternals stateInternals() {
    if (state == null) {
      throw new UnsupportedOperationException("No key in @StartBundle or @FinishBundle of " + stepName);
    }
    return state;
  }

  @Override
  public TimerInternals timerInternals() {
    if (timers == null) {
      throw new UnsupportedOperationException("No key in @StartBundle or @FinishBundle of " + stepName);
    }
    return timers;
  }

  @Override
  public DoFn.BundleFinalizer bundleFinalizer() {
    return finalizer;
  }

  /** Delivers a due timer of {@code key} to its runner, in the window the timer was set for. */
  public static void fire(DoFnRunner<Object, Object> runner, Object key, TimerData timer) {
    BoundedWindow window = ((StateNamespaces.WindowNamespace<?>) timer.getNamespace()).getWindow();
    runner.onTimer(
        timer.getTimerId(),
        timer.getTimerFamilyId(),
        key,
        window,
        timer.getTimestamp(),
        timer.getOutputTimestamp(),
        timer.getDomain(),
        timer.causedByDrain());
  }
}
