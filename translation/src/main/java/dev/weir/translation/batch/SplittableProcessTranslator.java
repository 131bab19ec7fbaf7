package dev.weir.translation.batch;

import dev.weir.translation.runtime.DoFnSpec;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.List;
import org.apache.beam.runners.core.SplittableParDoViaKeyedWorkItems;
import org.apache.beam.sdk.transforms.DoFnSchemaInformation;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.sql.Dataset;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The processing step of a bounded splittable DoFn (what Beam's {@code SplittableParDo}
 * expansion leaves after pairing elements with their split restrictions): the pairs are spread
 * round-robin over the partitions, and each is processed whole by {@link SplittableDoFnFunction}.
 */
public final class SplittableProcessTranslator
    implements TransformTranslator<SplittableParDo.ProcessKeyedElements<?, ?, ?, ?>> {

  @Override
  public @Nullable String whyNot(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform, TranslationContext context) {
    if (DoFnSignatures.signatureForDoFn(transform.getFn()).isBoundedPerElement() == PCollection.IsBounded.UNBOUNDED) {
      return "its splittable DoFn " + transform.getFn().getClass().getName()
          + " is unbounded per element, which needs streaming";
    }
    return context.policies().whyNot(transform.getFn());
  }

  /**
   * The step as runners-core's {@code ProcessFn} over keyed work items (an element and its
   * restriction, or a timer to resume one), with the user's DoFn inside it: what streaming runs
   * per key over state, where the residual restriction, the watermark estimator's state and a
   * watermark hold wait between epochs. Built once per run, without side-input contents: each
   * epoch gives it its own ({@link DoFnSpec#withSideInputs}).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static DoFnSpec processFnSpec(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform, TranslationContext context) {
    SplittableParDoViaKeyedWorkItems.ProcessFn<?, ?, ?, ?, ?> processFn =
        new SplittableParDoViaKeyedWorkItems.ProcessFn(
            transform.getFn(),
            transform.getElementCoder(),
            transform.getRestrictionCoder(),
            transform.getWatermarkEstimatorStateCoder(),
            transform.getInputWindowingStrategy(),
            transform.getSideInputMapping());
    return new DoFnSpec(
        context.stepName(),
        processFn,
        context.options(),
        null,
        ParDoTranslator.outputCoders(context),
        ParDoTranslator.outputTags(transform.getMainOutputTag(), context),
        transform.getInputWindowingStrategy(),
        DoFnSchemaInformation.create(),
        transform.getSideInputMapping(),
        List.of(),
        context.metrics(),
        // A ProcessFn per bundle: each bundle binds it to its own state, timers and checkpoint
        // executor (SplittableProcessPartition).
        null);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(SplittableParDo.ProcessKeyedElements<?, ?, ?, ?> transform, TranslationContext context) {
    PCollection<KV<byte[], KV<Object, Object>>> input = context.input();
    List<TupleTag<?>> tags = ParDoTranslator.outputTags(transform.getMainOutputTag(), context);
    DoFnSpec spec =
        new DoFnSpec(
            context.stepName(),
            transform.getFn(),
            context.options(),
            (org.apache.beam.sdk.coders.Coder<Object>) transform.getElementCoder(),
            ParDoTranslator.outputCoders(context),
            tags,
            transform.getInputWindowingStrategy(),
            DoFnSchemaInformation.create(),
            transform.getSideInputMapping(),
            ParDoTranslator.sideInputs(context, transform.getSideInputs()),
            context.metrics(),
            // Batch: each bundle sets up its own instance.
            null);
    int partitions = context.shufflePartitions();
    Dataset<WindowedValue<KV<byte[], KV<Object, Object>>>> spread = context.dataset(input).repartition(partitions);
    ParDoTranslator.putOutputs(context, tags, encoder -> spread.mapPartitions(new SplittableDoFnFunction(spec), encoder));
  }
}
