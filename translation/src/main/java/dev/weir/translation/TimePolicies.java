package dev.weir.translation;

import java.io.Serializable;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnSignature;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterSynchronizedProcessingTime;
import org.apache.beam.sdk.transforms.windowing.Trigger;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How processing time and triggers behave, chosen by the user per run (the runner's
 * {@code --processingTimeTimers}, {@code --processingTimeEndOfInput} and
 * {@code --windowTriggers}). Processing time has no meaning in batch, so by default a batch
 * pipeline that depends on it fails before it runs instead of silently computing something else.
 */
public final class TimePolicies implements Serializable {

  /** What to do with processing-time timers and processing-time triggers. */
  public enum ProcessingTimeTimers {
    ALLOW,
    IGNORE,
    FAIL
  }

  /** What to do with pending processing-time timers when the input ends. */
  public enum ProcessingTimeEndOfInput {
    FIRE_AND_QUIESCE,
    IGNORE
  }

  /** Whether user triggers produce early and late panes, or each window fires once, complete. */
  public enum WindowTriggers {
    ALLOW,
    IGNORE
  }

  private final ProcessingTimeTimers processingTimeTimers;
  private final ProcessingTimeEndOfInput processingTimeEndOfInput;
  private final WindowTriggers windowTriggers;

  public TimePolicies(
      ProcessingTimeTimers processingTimeTimers,
      ProcessingTimeEndOfInput processingTimeEndOfInput,
      WindowTriggers windowTriggers) {
    this.processingTimeTimers = processingTimeTimers;
    this.processingTimeEndOfInput = processingTimeEndOfInput;
    this.windowTriggers = windowTriggers;
  }

  /** Batch defaults: FAIL, IGNORE, IGNORE. */
  public static TimePolicies batchDefaults() {
    return new TimePolicies(ProcessingTimeTimers.FAIL, ProcessingTimeEndOfInput.IGNORE, WindowTriggers.IGNORE);
  }

  /** Streaming defaults: ALLOW, FIRE_AND_QUIESCE, ALLOW. */
  public static TimePolicies streamingDefaults() {
    return new TimePolicies(
        ProcessingTimeTimers.ALLOW, ProcessingTimeEndOfInput.FIRE_AND_QUIESCE, WindowTriggers.ALLOW);
  }

  public ProcessingTimeTimers processingTimeTimers() {
    return processingTimeTimers;
  }

  public ProcessingTimeEndOfInput processingTimeEndOfInput() {
    return processingTimeEndOfInput;
  }

  public WindowTriggers windowTriggers() {
    return windowTriggers;
  }

  /** Why {@code fn} may not run under these policies, or {@code null}. */
  public @Nullable String whyNot(DoFn<?, ?> fn) {
    if (processingTimeTimers != ProcessingTimeTimers.FAIL) {
      return null;
    }
    DoFnSignature signature = DoFnSignatures.signatureForDoFn(fn);
    for (DoFnSignature.TimerDeclaration timer : signature.timerDeclarations().values()) {
      if (DoFnSignatures.getTimerSpecOrThrow(timer, fn).getTimeDomain() != TimeDomain.EVENT_TIME) {
        return processingTimeMessage("its DoFn sets the processing-time timer '" + userId(timer.id()) + "'");
      }
    }
    for (DoFnSignature.TimerFamilyDeclaration family : signature.timerFamilyDeclarations().values()) {
      if (DoFnSignatures.getTimerFamilySpecOrThrow(family, fn).getTimeDomain() != TimeDomain.EVENT_TIME) {
        return processingTimeMessage(
            "its DoFn sets processing-time timers of family '" + userId(family.id()) + "'");
      }
    }
    return null;
  }

  /** Why a grouping with {@code strategy} may not run under these policies, or {@code null}. */
  public @Nullable String whyNot(WindowingStrategy<?, ?> strategy) {
    if (processingTimeTimers == ProcessingTimeTimers.FAIL && usesProcessingTime(strategy.getTrigger())) {
      return processingTimeMessage("its trigger " + strategy.getTrigger() + " fires in processing time");
    }
    return null;
  }

  /** Beam prefixes the ids of declared timers ("ts-", "tfs-"); users know them without it. */
  private static String userId(String id) {
    return id.replaceFirst("^tf?s-", "");
  }

  private static boolean usesProcessingTime(Trigger trigger) {
    if (trigger instanceof AfterProcessingTime || trigger instanceof AfterSynchronizedProcessingTime) {
      return true;
    }
    for (Trigger sub : trigger.subTriggers()) {
      if (usesProcessingTime(sub)) {
        return true;
      }
    }
    return false;
  }

  private static String processingTimeMessage(String what) {
    return what + ", and processing time has no meaning in batch (--processingTimeTimers=FAIL, the "
        + "batch default); set --processingTimeTimers=ALLOW to run it against a processing clock, "
        + "or --processingTimeTimers=IGNORE to drop it";
  }

  @Override
  public String toString() {
    return "processingTimeTimers=" + processingTimeTimers + ", processingTimeEndOfInput="
        + processingTimeEndOfInput + ", windowTriggers=" + windowTriggers;
  }
}
