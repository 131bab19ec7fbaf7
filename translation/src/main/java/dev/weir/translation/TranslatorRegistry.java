package dev.weir.translation;

import org.apache.beam.sdk.transforms.PTransform;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Which translator handles which Beam transform, in one mode: {@code batch.BatchTranslators} or
 * {@code streaming.StreamingTranslators}, each the one map of its mode. Composites it lists are
 * translated whole (when their translator agrees); every other composite is expanded into its
 * parts. The check pass ({@link PipelineTranslator#check}) is given one, so this package names no
 * translator of either mode.
 */
public interface TranslatorRegistry {
  /** Whether these are streaming's translators: the plan then runs as epochs. */
  boolean streaming();

  /** The translator of {@code transform}'s class, or null: none in this mode. */
  @Nullable
  TransformTranslator<PTransform<?, ?>> translatorFor(PTransform<?, ?> transform);
}
