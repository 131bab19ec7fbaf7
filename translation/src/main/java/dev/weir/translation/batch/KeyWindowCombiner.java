package dev.weir.translation.batch;

import dev.weir.encoders.CoderEncoders;
import dev.weir.translation.StepFailure;
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
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.expressions.Aggregator;
import org.joda.time.Instant;

/**
 * A Beam {@code CombineFn} as a Spark {@link Aggregator} over the elements of one (key, window).
 * Spark runs it map-side first (partial aggregation into Beam accumulators), shuffles the
 * accumulators and merges them, so only one accumulator per key, window and partition crosses
 * the network. Works for {@code CombineFnWithContext} without side inputs: the context gives
 * the pipeline options.
 */
final class CombineAggregator
    extends Aggregator<WindowedValue<KV<Object, Object>>, CombineBuffer, WindowedValue<KV<Object, Object>>> {
  private final String stepName;
  private final CombineFnWithContext<Object, Object, Object> fn;
  private final SerializablePipelineOptions options;
  private final TimestampCombiner timestampCombiner;
  private final CombineBuffer.BufferCoder bufferCoder;
  private final Encoder<WindowedValue<KV<Object, Object>>> outputEncoder;
  private transient CombineWithContext.Context context;

  @SuppressWarnings("unchecked")
  CombineAggregator(
      String stepName,
      GlobalCombineFn<?, ?, ?> fn,
      SerializablePipelineOptions options,
      TimestampCombiner timestampCombiner,
      CombineBuffer.BufferCoder bufferCoder,
      Encoder<WindowedValue<KV<Object, Object>>> outputEncoder) {
    this.stepName = stepName;
    this.fn = (CombineFnWithContext<Object, Object, Object>) CombineFnUtil.toFnWithContext(fn);
    this.options = options;
    this.timestampCombiner = timestampCombiner;
    this.bufferCoder = bufferCoder;
    this.outputEncoder = outputEncoder;
  }

  String stepName() {
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

  @Override
  public CombineBuffer zero() {
    return new CombineBuffer();
  }

  @Override
  public CombineBuffer reduce(CombineBuffer buffer, WindowedValue<KV<Object, Object>> element) {
    try {
      BoundedWindow window = element.getWindows().iterator().next();
      Object accumulator = buffer.accumulator;
      if (buffer.isEmpty()) {
        buffer.key = element.getValue().getKey();
        buffer.window = window;
        accumulator = fn.createAccumulator(context());
      }
      buffer.accumulator = fn.addInput(accumulator, element.getValue().getValue(), context());
      Instant assigned = timestampCombiner.assign(window, element.getTimestamp());
      buffer.timestamp = buffer.timestamp == null ? assigned : timestampCombiner.combine(buffer.timestamp, assigned);
      return buffer;
    } catch (RuntimeException e) {
      throw new StepFailure(stepName, e);
    }
  }

  @Override
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

  @Override
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

  @Override
  public Encoder<CombineBuffer> bufferEncoder() {
    return CoderEncoders.of(bufferCoder);
  }

  @Override
  public Encoder<WindowedValue<KV<Object, Object>>> outputEncoder() {
    return outputEncoder;
  }
}
