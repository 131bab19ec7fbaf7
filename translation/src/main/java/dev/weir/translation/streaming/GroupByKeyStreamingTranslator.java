package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.CoderFunctions;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.JavaRDD;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code GroupByKey} in streaming: each epoch the step's elements are shuffled by Beam-encoded key
 * into a fixed number of partitions, so a key always meets its state again, and each partition
 * runs {@link GroupAlsoByWindowPartition}. The result must be computed exactly once, since
 * computing it changes the state: in one Spark job of its own, kept for the epoch, or, when only
 * one chain of lazily derived steps follows, within the epoch's leaves job ({@link
 * RunsWithLeaves}). The step's output watermark is its input watermark held back by the earliest
 * hold of any partition.
 */
public final class GroupByKeyStreamingTranslator implements OperatorTranslator<GroupByKey<?, ?>>, RunsWithLeaves<GroupByKey<?, ?>> {
  @Override
  public @Nullable String whyNot(GroupByKey<?, ?> transform, TranslationContext context) {
    return context.policies().whyNot(context.input().getWindowingStrategy());
  }

  @Override
  public StepOperator operator(GroupByKey<?, ?> transform) {
    return new GroupByKeyOperator();
  }

  /** A GroupByKey over the run: its keyed side built when it opens, run each epoch on its input. */
  private static final class GroupByKeyOperator implements StepOperator {
    private @Nullable KeyedReduce reduce;

    @Override
    @SuppressWarnings("unchecked")
    public void open(TranslationContext context) {
      PCollection<KV<Object, Object>> input = context.input();
      KvCoder<Object, Object> kvCoder = (KvCoder<Object, Object>) input.getCoder();
      reduce = new KeyedReduce(
          context, kvCoder.getKeyCoder(), kvCoder.getValueCoder(), SystemReduceFn.buffering(kvCoder.getValueCoder()), null);
    }

    @Override
    public void processEpoch(TranslationContext context) {
      reduce.runEpoch(context, context.rdd(context.<KV<Object, Object>>input()));
    }
  }

  /**
   * A keyed step's side that keeps state, over the run: each epoch, the step's input (or what a
   * map side made of it, whose values {@code valueCoder} encodes) shuffled by key to the
   * partitions that keep the keys' state, where Beam's {@code ReduceFnRunner} applies {@code
   * reduceFn} per key and window under the input's windowing strategy, and the step's output is
   * what it emits. A combining step passes {@code endOfWindow}, which runs instead where the
   * strategy lets it ({@link EndOfWindowCombining#whyNot}). What no epoch changes (the strategy,
   * the coders) is built once, with the step's operator.
   */
  static final class KeyedReduce {
    private final WindowingStrategy<?, BoundedWindow> strategy;
    private final Coder<Object> keyCoder;
    private final SystemReduceFn<Object, ?, ?, ?, BoundedWindow> reduceFn;
    private final @Nullable EndOfWindowCombining endOfWindow;
    private final Coder<WindowedValue<Object>> elementCoder;
    private final Coder<WindowedValue<Object>> outputCoder;

    @SuppressWarnings({"unchecked", "rawtypes"})
    KeyedReduce(
        TranslationContext context,
        Coder<Object> keyCoder,
        Coder<?> valueCoder,
        SystemReduceFn<Object, ?, ?, ?, BoundedWindow> reduceFn,
        @Nullable EndOfWindowCombining endOfWindow) {
      PCollection<?> input = context.input();
      WindowingStrategy<?, BoundedWindow> strategy = (WindowingStrategy<?, BoundedWindow>) input.getWindowingStrategy();
      if (context.policies().windowTriggers() == TimePolicies.WindowTriggers.IGNORE) {
        strategy = strategy.withTrigger(DefaultTrigger.of());
      }
      this.strategy = strategy;
      this.keyCoder = keyCoder;
      this.reduceFn = reduceFn;
      this.endOfWindow = EndOfWindowCombining.whyNot(strategy) == null ? endOfWindow : null;
      Coder<? extends BoundedWindow> windowCoder = TranslationContext.windowCoder(input);
      this.elementCoder = (Coder) WindowedValues.getFullCoder(valueCoder, windowCoder);
      this.outputCoder = (Coder) WindowedValues.getFullCoder(context.output().getCoder(), windowCoder);
    }

    /** Runs the step's epoch over {@code elements}: puts its output and reports its watermark. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void runEpoch(TranslationContext context, JavaRDD<? extends WindowedValue<? extends KV<?, ?>>> elements) {
      StreamingRun run = StreamingRun.of(context);
      PCollection<?> output = context.output();
      KeyedShuffle.LastRun last = KeyedShuffle.LastRun.of(run, context.stepName());
      if (last.skipsEpoch(context)) {
        // No element and no timer due: running would change no key and emit nothing.
        run.reportOutputWatermark(last.outputWatermark(run.inputWatermark()));
        return;
      }

      GroupAlsoByWindowPartition.Spec spec = new GroupAlsoByWindowPartition.Spec();
      spec.run = KeyedEpoch.of(context, last.stateEpoch(run.epoch()));
      spec.stepName = context.stepName();
      spec.strategy = strategy;
      spec.keyCoder = keyCoder;
      spec.reduceFn = (SystemReduceFn) reduceFn;
      spec.endOfWindow = endOfWindow;
      spec.elementCoder = elementCoder;
      spec.outputCoder = (Coder) outputCoder;
      spec.options = context.options();
      spec.policies = context.policies();

      int partitions = run.keyedPartitions();
      JavaRDD<byte[]> grouped =
          KeyedShuffle.pinned(
              context,
              Rdds.mapPartitionsWithIndex(
                  KeyedShuffle.byKey(elements, keyCoder, elementCoder, false, partitions, spec.run.backend().groupsKeys()),
                  new GroupAlsoByWindowPartition(spec),
                  true));
      if (run.runsWithLeaves()) {
        // Only lazily derived steps follow, up to the leaves: the leaves job runs each partition
        // once, on its way.
        KeyedShuffle.settleAfterLeaves(context, spec.run.holds(), partitions, last);
        context.putRdd((PCollection<Object>) output, Rdds.map(grouped, new CoderFunctions.Decode<>(outputCoder)), false);
        return;
      }
      KeyedShuffle.runOnce(context, grouped, spec.run.holds(), partitions, last);
      run.reportOutputWatermark(last.outputWatermark(run.inputWatermark()));
      if (last.emittedNothing(context)) {
        return;
      }
      context.putRdd((PCollection<Object>) output, Rdds.map(grouped, new CoderFunctions.Decode<>(outputCoder)), true);
    }
  }
}
