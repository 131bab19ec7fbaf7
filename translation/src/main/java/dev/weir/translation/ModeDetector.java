package dev.weir.translation;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
import org.checkerframework.checker.nullness.qual.Nullable;

/** The mode-detection pass: which PCollection, if any, is unbounded. */
public final class ModeDetector {
  private ModeDetector() {}

  /** The first unbounded PCollection of {@code pipeline}, or {@code null} if all are bounded. */
  public static @Nullable PCollection<?> firstUnbounded(Pipeline pipeline) {
    PCollection<?>[] found = new PCollection<?>[1];
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public void visitValue(PValue value, TransformHierarchy.Node producer) {
            if (found[0] == null
                && value instanceof PCollection
                && ((PCollection<?>) value).isBounded() == PCollection.IsBounded.UNBOUNDED) {
              found[0] = (PCollection<?>) value;
            }
          }
        });
    return found[0];
  }
}
