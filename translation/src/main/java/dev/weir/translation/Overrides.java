package dev.weir.translation;

import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.PTransformOverride;
import org.apache.beam.sdk.util.construction.PTransformMatchers;
import org.apache.beam.sdk.util.construction.PTransformTranslation;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.util.construction.SplittableParDoNaiveBounded;

/**
 * Rewrites a pipeline into the transforms Weir translates: reads wrapped in splittable DoFns go
 * back to primitive reads, and splittable DoFns over bounded input run each restriction whole
 * (the "naive" expansion: in batch nothing needs checkpointing in the middle of a restriction).
 */
public final class Overrides {
  private Overrides() {}

  public static void apply(Pipeline pipeline) {
    SplittableParDo.convertReadBasedSplittableDoFnsToPrimitiveReads(pipeline);
    pipeline.replaceAll(
        List.of(
            PTransformOverride.of(PTransformMatchers.splittableParDo(), new SplittableParDo.OverrideFactory<>()),
            PTransformOverride.of(
                PTransformMatchers.urnEqualTo(PTransformTranslation.SPLITTABLE_PROCESS_KEYED_URN),
                new SplittableParDoNaiveBounded.OverrideFactory<>())));
  }
}
