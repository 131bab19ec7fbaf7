package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.CoderFunctions;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.batch.ParDoTranslator;
import dev.weir.translation.batch.SplittableProcessTranslator;
import dev.weir.translation.runtime.DoFnSpec;
import java.util.List;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaRDD;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The processing step of a splittable DoFn in streaming. Bounded per element, it runs as in
 * batch: each restriction whole, in the epoch its element arrives. Unbounded per element
 * ({@code PeriodicImpulse}, {@code Watch}, KafkaIO's splittable read), each (element,
 * restriction) pair is a work item kept in keyed state across epochs ({@link
 * SplittableProcessPartition}): processed for a bounded time per epoch, checkpointed, resumed,
 * its watermark estimator holding the step's output watermark. Elements wait for their side
 * inputs as a ParDo's do.
 */
public final class SplittableProcessStreamingTranslator
    implements OperatorTranslator<SplittableParDo.ProcessKeyedElements<?, ?, ?, ?>> {
  private final SplittableProcessTranslator batch = new SplittableProcessTranslator();

  private static boolean unbounded(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform) {
    return DoFnSignatures.signatureForDoFn(transform.getFn()).isBoundedPerElement() == PCollection.IsBounded.UNBOUNDED;
  }

  @Override
  public @Nullable String whyNot(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform, TranslationContext context) {
    return unbounded(transform) ? context.policies().whyNot(transform.getFn()) : batch.whyNot(transform, context);
  }

  @Override
  public StepOperator operator(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform) {
    return new ProcessOperator(transform);
  }

  /**
   * The processing step over the run. Unbounded per element, its ProcessFn's spec, output tags
   * and coders are built when it opens; each epoch adds its side inputs' contents, if any.
   * Bounded per element, each epoch runs batch's translation over the epoch's elements.
   */
  private final class ProcessOperator implements StepOperator {
    private final SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform;
    private final boolean unbounded;
    private @Nullable DoFnSpec processFn;
    private @Nullable List<TupleTag<?>> tags;
    private @Nullable Coder<WindowedValue<Object>> elementCoder;
    private @Nullable Coder<WindowedValue<Object>> outputCoder;

    ProcessOperator(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform) {
      this.transform = transform;
      this.unbounded = unbounded(transform);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void open(TranslationContext context) {
      if (!unbounded) {
        return;
      }
      PCollection<KV<byte[], KV<Object, Object>>> input = context.input();
      Coder<? extends BoundedWindow> windowCoder = TranslationContext.windowCoder(input);
      processFn = SplittableProcessTranslator.processFnSpec(transform, context);
      tags = ParDoTranslator.outputTags(transform.getMainOutputTag(), context);
      elementCoder = (Coder) WindowedValues.getFullCoder(input.getCoder(), windowCoder);
      outputCoder = (Coder) WindowedValues.getFullCoder(ParDoTranslator.outputValueCoder(tags, context), windowCoder);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void processEpoch(TranslationContext context) {
      StreamingRun run = StreamingRun.of(context);
      Instant hold = run.inputWatermark();
      if (!transform.getSideInputs().isEmpty()) {
        hold = min(hold, ParDoStreamingTranslator.waitForSideInputs(transform.getSideInputs(), context));
      }
      if (!unbounded) {
        batch.translate(transform, context);
        run.reportOutputWatermark(hold);
        return;
      }
      PCollection<KV<byte[], KV<Object, Object>>> input = context.input();
      SplittableProcessPartition.Spec plan = new SplittableProcessPartition.Spec();
      // It runs every epoch: its state is at the last one.
      plan.run = KeyedEpoch.of(context, run.epoch() - 1);
      plan.processFn = transform.getSideInputs().isEmpty()
          ? processFn
          : processFn.withSideInputs(ParDoTranslator.sideInputs(context, transform.getSideInputs()));
      plan.elementCoder = elementCoder;
      plan.outputCoder = outputCoder;
      plan.maxReadTimeMillis = run.settings().maxReadTimeMillis();
      plan.draining = run.draining();
      int partitions = run.keyedPartitions();
      JavaRDD<byte[]> out =
          KeyedShuffle.pinned(
              context,
              Rdds.mapPartitionsWithIndex(
                  KeyedShuffle.byKey(context.rdd(input), (Coder) ByteArrayCoder.of(), plan.elementCoder, true, partitions, false),
                  new SplittableProcessPartition(plan),
                  true));
      hold = min(hold, KeyedShuffle.runOnce(context, out, plan.run.holds(), partitions, new KeyedShuffle.LastRun()).outputWatermark(run.inputWatermark()));
      // A partition holds a watermark only while a work item waits in its state, with its resume
      // timer: the run goes on until every one is done (its input's watermark is not such a wait).
      if (plan.run.holds().value().values().stream().anyMatch(r -> r.hold() < BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis())) {
        run.noteWaiting();
      }
      ParDoTranslator.putRddOutputs(context, tags, Rdds.map(out, new CoderFunctions.Decode<>(plan.outputCoder)), true);
      run.reportOutputWatermark(hold);
    }
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
