package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.batch.CombinePerKeyTranslator;
import dev.weir.translation.runtime.CombineBuffer;
import dev.weir.translation.runtime.KeyWindowCombiner;
import dev.weir.translation.runtime.PartialCombine;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.CombineFnBase.GlobalCombineFn;
import org.apache.beam.sdk.transforms.CombineWithContext;
import org.apache.beam.sdk.transforms.CombineWithContext.CombineFnWithContext;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Trigger;
import org.apache.beam.sdk.util.AppliedCombineFn;
import org.apache.beam.sdk.util.CombineFnUtil;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code Combine.PerKey} in streaming, translated whole: each epoch, every input partition first
 * adds its elements into one accumulator per (key, window) ({@link PartialCombine}), and only
 * those accumulators are shuffled to the keyed partitions, where Beam's {@code ReduceFnRunner}
 * keeps one combined accumulator per key and window ({@code SystemReduceFn.combining}, which
 * merges each arriving accumulator into it) and fires panes as the trigger says; where each window
 * fires once, at its end, {@link EndOfWindowCombining} does the same without a {@code
 * ReduceFnRunner} per key. The composite's expansion would shuffle every element and buffer it in
 * state until its window fires.
 *
 * <p>The result is the expansion's exactly when adding a partial accumulator in one go cannot be
 * told from adding its elements one by one. Sessions are merged on the map side too, per key, as
 * far as the partition's elements go; the keyed side merges them with the rest (a union of
 * overlapping intervals, whatever the order). The expansion runs instead for other merging windows,
 * side inputs, a trigger that counts more than one element ({@code AfterPane}), and a timestamp combiner other
 * than end of window (the elements' own timestamps decide holds and lateness under those; at the
 * end of the window every element of a (key, window) has the same).
 */
public final class CombinePerKeyStreamingTranslator implements OperatorTranslator<Combine.PerKey<?, ?, ?>>, RunsWithLeaves<Combine.PerKey<?, ?, ?>> {

  @Override
  public @Nullable String whyNot(Combine.PerKey<?, ?, ?> transform, TranslationContext context) {
    PCollection<?> input = context.input();
    WindowingStrategy<?, ?> strategy = input.getWindowingStrategy();
    String policy = context.policies().whyNot(strategy);
    if (policy != null) {
      return policy;
    }
    String partial = CombinePerKeyTranslator.whyNotPartial(transform, input);
    if (partial != null) {
      return partial;
    }
    if (strategy.getTimestampCombiner() != TimestampCombiner.END_OF_WINDOW) {
      return "the timestamp combiner " + strategy.getTimestampCombiner() + " needs each element's timestamp";
    }
    if (context.policies().windowTriggers() != TimePolicies.WindowTriggers.IGNORE && countsElements(strategy.getTrigger())) {
      return "the trigger " + strategy.getTrigger() + " counts elements";
    }
    return null;
  }

  /**
   * Whether the trigger, or one inside it, fires on a count of more than one element. At least
   * one element (the continuation of any trigger after a grouping) is at least one partial
   * accumulator: that count fires alike.
   */
  static boolean countsElements(Trigger trigger) {
    if (trigger instanceof AfterPane && ((AfterPane) trigger).getElementCount() > 1) {
      return true;
    }
    for (Trigger sub : trigger.subTriggers()) {
      if (countsElements(sub)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public StepOperator operator(Combine.PerKey<?, ?, ?> transform) {
    return new CombineOperator(transform);
  }

  /**
   * A Combine.PerKey over the run: its combiner, accumulator coder and keyed side built when it
   * opens; each epoch its map side combines each partition's elements, and the keyed side merges
   * what they give.
   */
  private static final class CombineOperator implements StepOperator {
    private final Combine.PerKey<?, ?, ?> transform;
    private @Nullable KeyWindowCombiner combiner;
    private @Nullable KvCoder<Object, Object> kvCoder;
    private @Nullable WindowingStrategy<?, BoundedWindow> strategy;
    private GroupByKeyStreamingTranslator.@Nullable KeyedReduce reduce;

    CombineOperator(Combine.PerKey<?, ?, ?> transform) {
      this.transform = transform;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(TranslationContext context) {
      PCollection<KV<Object, Object>> input = context.input();
      kvCoder = (KvCoder<Object, Object>) input.getCoder();
      strategy = (WindowingStrategy<?, BoundedWindow>) input.getWindowingStrategy();
      Coder<Object> accumulatorCoder;
      try {
        accumulatorCoder = CombinePerKeyTranslator.accumulatorCoder(transform, input);
      } catch (CannotProvideCoderException e) {
        throw new IllegalStateException(e);
      }
      combiner = new KeyWindowCombiner(context.stepName(), transform.getFn(), context.options(), strategy.getTimestampCombiner());
      reduce = new GroupByKeyStreamingTranslator.KeyedReduce(
          context,
          kvCoder.getKeyCoder(),
          accumulatorCoder,
          keyedSide(kvCoder.getKeyCoder(), transform.getFn(), accumulatorCoder),
          new EndOfWindowCombining(combiner, strategy.getWindowFn().windowCoder(), accumulatorCoder));
    }

    @Override
    public void processEpoch(TranslationContext context) {
      // Windows merge on the map side as of the input watermark the keyed side receives them at.
      PartialCombine.Merging merging =
          strategy.getWindowFn().isNonMerging()
              ? null
              : new PartialCombine.Merging(strategy.getWindowFn(), StreamingRun.of(context).inputWatermarkBefore(), strategy.getAllowedLateness());
      JavaRDD<WindowedValue<KV<Object, Object>>> partial =
          Rdds.mapPartitions(
              context.rdd(context.<KV<Object, Object>>input()),
              new MapSide(combiner, kvCoder.getKeyCoder(), strategy.getWindowFn().windowCoder(), merging),
              false);
      reduce.runEpoch(context, partial);
    }
  }

  /**
   * What the keyed partitions run per key and window: Beam's combining {@code SystemReduceFn},
   * whose inputs are {@code fn}'s partial accumulators.
   */
  static SystemReduceFn<Object, Object, Object, Object, BoundedWindow> keyedSide(
      Coder<Object> keyCoder, GlobalCombineFn<?, ?, ?> fn, Coder<Object> accumulatorCoder) {
    AppliedCombineFn<Object, Object, Object, Object> merging =
        AppliedCombineFn.withAccumulatorCoder(new MergeAccumulators(fn), accumulatorCoder);
    return SystemReduceFn.combining(keyCoder, merging);
  }

  /** A partition's elements as one element per (key, window) whose value is their accumulator. */
  private static final class MapSide
      implements FlatMapFunction<Iterator<WindowedValue<KV<Object, Object>>>, WindowedValue<KV<Object, Object>>> {
    private final KeyWindowCombiner combiner;
    private final Coder<Object> keyCoder;
    private final Coder<BoundedWindow> windowCoder;
    private final PartialCombine.@Nullable Merging merging;

    MapSide(
        KeyWindowCombiner combiner,
        Coder<Object> keyCoder,
        Coder<BoundedWindow> windowCoder,
        PartialCombine.@Nullable Merging merging) {
      this.combiner = combiner;
      this.keyCoder = keyCoder;
      this.windowCoder = windowCoder;
      this.merging = merging;
    }

    @Override
    public Iterator<WindowedValue<KV<Object, Object>>> call(Iterator<WindowedValue<KV<Object, Object>>> input) {
      PartialCombine partial = new PartialCombine(input, combiner, keyCoder, windowCoder, PartialCombine.MAX_ENTRIES, merging);
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return partial.hasNext();
        }

        @Override
        public WindowedValue<KV<Object, Object>> next() {
          CombineBuffer buffer = partial.next();
          // At the end of the window, as each of its elements would be held and judged late.
          return WindowedValues.of(KV.of(buffer.key, buffer.accumulator), buffer.timestamp, buffer.window, PaneInfo.NO_FIRING);
        }
      };
    }
  }

  /**
   * The user's CombineFn over accumulators: adding one merges it in. Beam's combining state holds
   * the key and window's accumulator and adds each partial accumulator that arrives.
   */
  private static final class MergeAccumulators
      extends CombineFnWithContext<Object, Object, Object> {
    private final CombineFnWithContext<Object, Object, Object> fn;

    @SuppressWarnings("unchecked")
    MergeAccumulators(GlobalCombineFn<?, ?, ?> fn) {
      this.fn =
          (CombineFnWithContext<Object, Object, Object>)
              CombineFnUtil.toFnWithContext(fn);
    }

    @Override
    public Object createAccumulator(CombineWithContext.Context c) {
      return fn.createAccumulator(c);
    }

    @Override
    public Object addInput(Object accumulator, Object partial, CombineWithContext.Context c) {
      return fn.mergeAccumulators(Arrays.asList(accumulator, partial), c);
    }

    @Override
    public Object mergeAccumulators(Iterable<Object> accumulators, CombineWithContext.Context c) {
      return fn.mergeAccumulators(accumulators, c);
    }

    @Override
    public Object extractOutput(Object accumulator, CombineWithContext.Context c) {
      return fn.extractOutput(accumulator, c);
    }

    @Override
    public Object compact(Object accumulator, CombineWithContext.Context c) {
      return fn.compact(accumulator, c);
    }
  }
}
