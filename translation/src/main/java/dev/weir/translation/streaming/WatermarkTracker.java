package dev.weir.translation.streaming;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Every step's watermarks in a streaming run, following Beam's model: the input watermark of a
 * step is the minimum output watermark of the steps producing its main inputs; a step's output
 * watermark is its input watermark unless it reports an earlier one (a grouping's holds) or its
 * own (a source). Idle producers (see {@link OperatorWatermarks#idle}) leave the minimum. Steps are
 * visited in topological order within an epoch ({@link #beginStep}, {@link #endStep}), so a step
 * sees the watermarks its producers reached in the same epoch. No watermark ever goes back.
 */
final class WatermarkTracker {
  private final Map<String, List<String>> producers;
  private final Map<PCollection<?>, String> producerOf;
  private final Map<String, OperatorWatermarks> watermarks = new LinkedHashMap<>();
  private @Nullable String step;
  private Instant inputBefore = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private Instant inputNow = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private @Nullable Instant reported;
  private boolean reportedIdle;

  /**
   * @param producers for each step in topological order, the steps producing its main inputs
   * @param producerOf the step producing each PCollection
   */
  WatermarkTracker(Map<String, List<String>> producers, Map<PCollection<?>, String> producerOf) {
    this.producers = producers;
    this.producerOf = producerOf;
    for (String name : producers.keySet()) {
      watermarks.put(
          name, new OperatorWatermarks(BoundedWindow.TIMESTAMP_MIN_VALUE, BoundedWindow.TIMESTAMP_MIN_VALUE));
    }
  }

  /** Makes {@code name} the current step; its producers have run in this epoch already. */
  void beginStep(String name) {
    step = name;
    reported = null;
    reportedIdle = false;
    inputBefore = watermarks.get(name).input();
    // Idle producers leave the minimum; when all are idle, so is this step, and it keeps its
    // input watermark where it was.
    Instant in = null;
    for (String producer : producers.get(name)) {
      OperatorWatermarks upstream = watermarks.get(producer);
      if (!upstream.idle() && (in == null || upstream.output().isBefore(in))) {
        in = upstream.output();
      }
    }
    if (in == null) {
      in = producers.get(name).isEmpty() ? BoundedWindow.TIMESTAMP_MAX_VALUE : inputBefore;
    }
    inputNow = max(inputBefore, in);
  }

  /** The current step's input watermark when the epoch began. */
  Instant inputWatermarkBefore() {
    return inputBefore;
  }

  /** The current step's input watermark now that its producers have run in this epoch. */
  Instant inputWatermark() {
    return inputNow;
  }

  /** The current step's output watermark when the epoch began. */
  Instant outputWatermarkBefore() {
    return watermarks.get(step).output();
  }

  /** Whether the current step was idle when the epoch began. */
  boolean idleBefore() {
    return watermarks.get(step).idle();
  }

  /** Sets the current step's output watermark for this epoch (never earlier than before). */
  void report(Instant watermark) {
    reported = watermark;
  }

  /** Says that the current step, a source, is idle. */
  void reportIdle() {
    reportedIdle = true;
  }

  /** Records the current step's watermarks; true if either moved. */
  boolean endStep() {
    OperatorWatermarks before = watermarks.get(step);
    Instant out = max(before.output(), reported != null ? reported : inputNow);
    List<String> upstream = producers.get(step);
    boolean idle = upstream.isEmpty() ? reportedIdle : upstream.stream().allMatch(p -> watermarks.get(p).idle());
    OperatorWatermarks after = new OperatorWatermarks(inputNow, out, idle);
    watermarks.put(step, after);
    step = null;
    return !after.equals(before);
  }

  /** The output watermark of the step producing {@code pc}, as it is now in this epoch. */
  Instant watermarkOf(PCollection<?> pc) {
    return watermarks.get(producerOf.get(pc)).output();
  }

  /** Every step's watermarks, in topological order. */
  Map<String, OperatorWatermarks> all() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(watermarks));
  }

  /** Takes the watermarks of a commit, for the steps this pipeline still has. */
  void restore(Map<String, OperatorWatermarks> committed) {
    for (Map.Entry<String, OperatorWatermarks> w : committed.entrySet()) {
      if (watermarks.containsKey(w.getKey())) {
        watermarks.put(w.getKey(), w.getValue());
      }
    }
  }

  /** Whether every step's output watermark reached the end of time. */
  boolean finished() {
    for (OperatorWatermarks w : watermarks.values()) {
      if (w.output().isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The steps whose output watermark is held before the end of time although every source's has
   * reached it: empty unless something holds a watermark it should not.
   */
  List<String> heldAfterEndOfInput() {
    List<String> held = new ArrayList<>();
    for (Map.Entry<String, OperatorWatermarks> w : watermarks.entrySet()) {
      boolean source = producers.get(w.getKey()).isEmpty();
      if (w.getValue().output().isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        if (source) {
          return List.of();
        }
        held.add(w.getKey() + " (" + w.getValue() + ")");
      }
    }
    return held;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
