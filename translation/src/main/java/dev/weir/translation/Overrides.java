package dev.weir.translation;

import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.PTransformOverride;
import org.apache.beam.sdk.util.construction.PTransformMatchers;
import org.apache.beam.sdk.util.construction.SplittableParDo;

/**
 * Rewrites a pipeline into the transforms Weir translates: reads wrapped in splittable DoFns go
 * back to primitive reads, and splittable DoFns expand into Beam's pairing with restrictions,
 * splitting, and a processing step that Weir translates itself.
 */
public final class Overrides {
  private Overrides() {}

  public static void apply(Pipeline pipeline) {
    SplittableParDo.convertReadBasedSplittableDoFnsToPrimitiveReads(pipeline);
    pipeline.replaceAll(
        List.of(
            PTransformOverride.of(PTransformMatchers.splittableParDo(), new SplittableParDo.OverrideFactory<>())));
  }
}
