package dev.weir.translation.runtime;

import dev.weir.translation.StepFailure;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.CombineFnBase.GlobalCombineFn;
import org.apache.beam.sdk.transforms.CombineWithContext;
import org.apache.beam.sdk.transforms.CombineWithContext.CombineFnWithContext;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.util.CombineFnUtil;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.joda.time.Instant;

/**
 * A Beam {@code CombineFn} over the elements of one (key, window), in the shape of a partial
 * aggregation: an empty buffer, an element added, two buffers merged, the output extracted with
 * its window, timestamp and pane. {@link PartialCombine} runs it before a shuffle; batch merges
 * and extracts after it, streaming hands the accumulators to Beam's {@code ReduceFnRunner}.
 * Works for {@code CombineFnWithContext} without side inputs: the context gives the pipeline
 * options.
 */
public final class KeyWindowCombiner implements java.io.Serializable {
  private final String stepName;
  private final CombineFnWithContext<Object, Object, Object> fn;
  private final SerializablePipelineOptions options;
  private final TimestampCombiner timestampCombiner;
  private transient CombineWithContext.Context context;

  @SuppressWarnings("unchecked")
  public KeyWindowCombiner(
      String stepName, GlobalCombineFn<?, ?, ?> fn, SerializablePipelineOptions options, TimestampCombiner timestampCombiner) {
    this.stepName = stepName;
    this.fn = (CombineFnWithContext<Object, Object, Object>) CombineFnUtil.toFnWithContext(fn);
    this.options = options;
    this.timestampCombiner = timestampCombiner;
  }

  public String stepName() {
    return stepName;
  }

  private CombineWithContext.Context context() {
    if (context == null) {
      PipelineOptions opts = options.get();
      context =
          new CombineWithContext.Context() {
            @Override
            public PipelineOptions getPipelineOptions() {
              return opts;
            }

            @Override
            public <T> T sideInput(PCollectionView<T> view) {
              throw new IllegalArgumentException("Step '" + stepName + "' has no side input " + view);
            }
          };
    }
    return context;
  }

  public CombineBuffer zero() {
    return new CombineBuffer();
  }

  /** Adds an element's value in one of its windows. */
  public CombineBuffer reduce(CombineBuffer buffer, KV<Object, Object> element, Instant timestamp, BoundedWindow window) {
    try {
      Object accumulator = buffer.accumulator;
      if (buffer.isEmpty()) {
        buffer.key = element.getKey();
        buffer.window = window;
        accumulator = fn.createAccumulator(context());
      }
      buffer.accumulator = fn.addInput(accumulator, element.getValue(), context());
      Instant assigned = timestampCombiner.assign(window, timestamp);
      buffer.timestamp = buffer.timestamp == null ? assigned : timestampCombiner.combine(buffer.timestamp, assigned);
      return buffer;
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  public CombineBuffer merge(CombineBuffer a, CombineBuffer b) {
    if (b.isEmpty()) {
      return a;
    }
    if (a.isEmpty()) {
      return b;
    }
    try {
      a.accumulator = fn.mergeAccumulators(List.of(a.accumulator, b.accumulator), context());
      a.timestamp = timestampCombiner.combine(a.timestamp, b.timestamp);
      return a;
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  /**
   * Merges the buffers of one key whose windows a merging WindowFn merged into {@code result}:
   * their accumulators combined, their timestamps merged into the result window's context.
   */
  public CombineBuffer mergeWindows(List<CombineBuffer> buffers, BoundedWindow result) {
    try {
      CombineBuffer merged = buffers.get(0);
      List<Object> accumulators = new ArrayList<>(buffers.size());
      List<Instant> timestamps = new ArrayList<>(buffers.size());
      for (CombineBuffer buffer : buffers) {
        accumulators.add(buffer.accumulator);
        timestamps.add(buffer.timestamp);
      }
      merged.accumulator = buffers.size() == 1 ? merged.accumulator : fn.mergeAccumulators(accumulators, context());
      merged.timestamp = timestampCombiner.merge(result, timestamps);
      merged.window = result;
      return merged;
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  /** Two accumulators of one (key, window) merged into one; either may be changed and returned. */
  public Object mergeAccumulators(Object a, Object b) {
    try {
      return fn.mergeAccumulators(List.of(a, b), context());
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  /** What the CombineFn outputs for an accumulator. */
  public Object extractOutput(Object accumulator) {
    try {
      return fn.extractOutput(accumulator, context());
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  public WindowedValue<KV<Object, Object>> finish(CombineBuffer buffer) {
    try {
      Object output = fn.extractOutput(buffer.accumulator, context());
      return WindowedValues.of(
          KV.of(buffer.key, output),
          timestampCombiner.merge(buffer.window, buffer.timestamp),
          buffer.window,
          PaneInfo.ON_TIME_AND_ONLY_FIRING);
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }
}
