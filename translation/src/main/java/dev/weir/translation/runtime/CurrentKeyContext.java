package dev.weir.translation.runtime;

import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StatefulDoFnRunner;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/**
 * The key a stateful DoFn's runner works on, as the runner sees it: its state and timers, the
 * bundle's finalizer, its garbage-collection timer and its state cleaner. A bundle builds one
 * runner over this and points it at each key in turn ({@link #set}): Beam's runners read state
 * and timers from their step context at each access, and a runner per key costs a DoFn invoker
 * and type resolution each. Shared by batch and streaming stateful ParDo.
 */
public final class CurrentKeyContext
    implements StepContext, StatefulDoFnRunner.CleanupTimer<Object>, StatefulDoFnRunner.StateCleaner<BoundedWindow> {
  private final DoFn.BundleFinalizer finalizer;
  private StateInternals state;
  private TimerInternals timers;
  private StatefulDoFnRunner.CleanupTimer<Object> cleanupTimer;
  private StatefulDoFnRunner.StateCleaner<BoundedWindow> stateCleaner;

  public CurrentKeyContext(DoFn.BundleFinalizer finalizer) {
    this.finalizer = finalizer;
  }

  /** Points the context at a key. */
  public void set(
      StateInternals state,
      TimerInternals timers,
      StatefulDoFnRunner.CleanupTimer<Object> cleanupTimer,
      StatefulDoFnRunner.StateCleaner<BoundedWindow> stateCleaner) {
    this.state = state;
    this.timers = timers;
    this.cleanupTimer = cleanupTimer;
    this.stateCleaner = stateCleaner;
  }

  @Override
  public StateInternals stateInternals() {
    return state;
  }

  @Override
  public TimerInternals timerInternals() {
    return timers;
  }

  @Override
  public DoFn.BundleFinalizer bundleFinalizer() {
    return finalizer;
  }

  @Override
  public void setForWindow(Object value, BoundedWindow window) {
    cleanupTimer.setForWindow(value, window);
  }

  @Override
  public boolean isForWindow(String timerId, BoundedWindow window, Instant timestamp, TimeDomain timeDomain) {
    return cleanupTimer.isForWindow(timerId, window, timestamp, timeDomain);
  }

  @Override
  public void clearForWindow(BoundedWindow window) {
    stateCleaner.clearForWindow(window);
  }
}
