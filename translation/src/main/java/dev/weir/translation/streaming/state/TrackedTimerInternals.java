package dev.weir.translation.streaming.state;

import dev.weir.translation.runtime.TimerAdvance;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.state.TimeDomain;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A key's timers that also remember which are pending, so that their output timestamps can hold
 * the step's output watermark (Beam's timer holds): Beam's in-memory timers do not say.
 */
@org.apache.beam.sdk.annotations.Internal
public final class TrackedTimerInternals implements TimerInternals {
  private final InMemoryTimerInternals timers;
  private final Map<String, TimerData> pending;
  private final NamespaceKeyMemo namespaceKeys = new NamespaceKeyMemo();

  TrackedTimerInternals(InMemoryTimerInternals timers, Map<String, TimerData> pending) {
    this.timers = timers;
    this.pending = pending;
  }

  private String id(StateNamespace namespace, String timerId, String family) {
    return namespaceKeys.of(namespace) + '\u0000' + timerId + '\u0000' + family;
  }

  @Override
  public void setTimer(
      StateNamespace namespace, String timerId, String family, Instant target, Instant outputTimestamp, TimeDomain domain) {
    setTimer(TimerData.of(timerId, family, namespace, target, outputTimestamp, domain));
  }

  @Override
  public void setTimer(TimerData timer) {
    timers.setTimer(timer);
    pending.put(id(timer.getNamespace(), timer.getTimerId(), timer.getTimerFamilyId()), timer);
  }

  @Override
  public void deleteTimer(StateNamespace namespace, String timerId, String family, TimeDomain domain) {
    timers.deleteTimer(namespace, timerId, family, domain);
    pending.remove(id(namespace, timerId, family));
  }

  @Override
  public void deleteTimer(StateNamespace namespace, String timerId, String family) {
    timers.deleteTimer(namespace, timerId, family);
    pending.remove(id(namespace, timerId, family));
  }

  @Override
  public void deleteTimer(TimerData timer) {
    timers.deleteTimer(timer);
    pending.remove(id(timer.getNamespace(), timer.getTimerId(), timer.getTimerFamilyId()));
  }

  /** Forgets the namespaces' keys remembered while the key was worked on. */
  void forgetNamespaceKeys() {
    namespaceKeys.clear();
  }

  /** Takes a due timer out (it is about to fire), or returns null. */
  @Nullable
  public TimerData removeNext(TimeDomain domain) {
    TimerData next = TimerAdvance.removeNextDue(timers, domain);
    if (next != null) {
      pending.remove(id(next.getNamespace(), next.getTimerId(), next.getTimerFamilyId()));
    }
    return next;
  }

  @Override
  public Instant currentProcessingTime() {
    return timers.currentProcessingTime();
  }

  @Override
  public @Nullable Instant currentSynchronizedProcessingTime() {
    return timers.currentSynchronizedProcessingTime();
  }

  @Override
  public Instant currentInputWatermarkTime() {
    return timers.currentInputWatermarkTime();
  }

  @Override
  public @Nullable Instant currentOutputWatermarkTime() {
    return timers.currentOutputWatermarkTime();
  }
}
