package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.runtime.CombineBuffer;
import dev.weir.translation.runtime.KeyWindowCombiner;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.CombineFnBase.GlobalCombineFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.JavaRDD;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code Combine.PerKey} translated whole ({@link KeyedCombine}): map-side partial aggregation
 * into decoded Beam accumulators per (key, window), then one shuffle of
 * accumulators, merged per (key, window).
 * Merging windows and side inputs are left to the composite's expansion (GroupByKey, then the
 * combining ParDo), where they are handled already.
 */
public final class CombinePerKeyTranslator implements TransformTranslator<Combine.PerKey<?, ?, ?>> {

  @Override
  public @Nullable String whyNot(Combine.PerKey<?, ?, ?> transform, TranslationContext context) {
    PCollection<?> input = context.input();
    String policy = context.policies().whyNot(input.getWindowingStrategy());
    if (policy != null) {
      return policy;
    }
    if (GroupByKeyTranslator.honoursTrigger(input.getWindowingStrategy(), context)) {
      return "a triggered Combine produces its panes after a GroupByKey";
    }
    if (!input.getWindowingStrategy().getWindowFn().isNonMerging()) {
      // The keyed side here combines by (key, window), and merging needs each key's windows.
      return "merging windows are combined after a GroupByKey";
    }
    return whyNotPartial(transform, input);
  }

  /**
   * Why {@code transform} cannot be combined in partial accumulators per (key, window) before a
   * shuffle, in either mode (null if it can): merging windows other than {@code Sessions}, side
   * inputs, no accumulator coder.
   */
  public static @Nullable String whyNotPartial(Combine.PerKey<?, ?, ?> transform, PCollection<?> input) {
    WindowFn<?, ?> windowFn = input.getWindowingStrategy().getWindowFn();
    if (!windowFn.isNonMerging() && windowFn.getClass() != Sessions.class) {
      // Sessions merge by the union of overlapping intervals, so windows merged per partition
      // merge again into the same sessions; another WindowFn's merging may not.
      return "merging windows other than Sessions are combined after a GroupByKey";
    }
    if (!transform.getSideInputs().isEmpty()) {
      return "a CombineFn with side inputs runs as a ParDo after a GroupByKey";
    }
    try {
      accumulatorCoder(transform, input);
    } catch (CannotProvideCoderException | RuntimeException e) {
      return "no accumulator coder: " + e.getMessage();
    }
    return null;
  }

  /** The accumulator coder of {@code transform}'s CombineFn for its input's values. */
  @SuppressWarnings("unchecked")
  public static Coder<Object> accumulatorCoder(Combine.PerKey<?, ?, ?> transform, PCollection<?> input)
      throws CannotProvideCoderException {
    KvCoder<?, ?> kv = (KvCoder<?, ?>) input.getCoder();
    GlobalCombineFn<Object, Object, Object> fn = (GlobalCombineFn<Object, Object, Object>) transform.getFn();
    return fn.getAccumulatorCoder(input.getPipeline().getCoderRegistry(), (Coder<Object>) kv.getValueCoder());
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(Combine.PerKey<?, ?, ?> transform, TranslationContext context) {
    PCollection<KV<Object, Object>> input = context.input();
    PCollection<KV<Object, Object>> out = context.output();
    KvCoder<Object, Object> kvCoder = (KvCoder<Object, Object>) input.getCoder();
    WindowingStrategy<?, BoundedWindow> strategy =
        (WindowingStrategy<?, BoundedWindow>) input.getWindowingStrategy();
    Coder<BoundedWindow> windowCoder = strategy.getWindowFn().windowCoder();
    Coder<Object> accumulatorCoder;
    try {
      accumulatorCoder = accumulatorCoder(transform, input);
    } catch (CannotProvideCoderException e) {
      throw new IllegalStateException(e);
    }
    CombineBuffer.BufferCoder bufferCoder =
        new CombineBuffer.BufferCoder(kvCoder.getKeyCoder(), windowCoder, accumulatorCoder);
    KeyWindowCombiner combiner =
        new KeyWindowCombiner(context.stepName(), transform.getFn(), context.options(), strategy.getTimestampCombiner());
    int partitions = context.shufflePartitions();
    JavaRDD<WindowedValue<KV<Object, Object>>> combined =
        KeyedCombine.combine(
            context.rdd(input),
            new KeyedCombine.Spec(combiner, kvCoder.getKeyCoder(), windowCoder, bufferCoder, KeyedCombine.MAP_SIDE_ENTRIES),
            partitions);
    context.putRdd(out, combined, false);
  }
}
