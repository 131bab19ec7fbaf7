package dev.weir.translation;

import org.apache.beam.sdk.transforms.PTransform;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Translates one kind of Beam transform onto Spark Datasets. Translators are stateless and never
 * {@code Serializable}: whatever runs on executors is a small static function class.
 */
public interface TransformTranslator<T extends PTransform<?, ?>> {

  /**
   * Why this translator cannot translate {@code transform}, or {@code null} if it can. Called in
   * the check pass, before any Spark job runs; for a composite, a reason means "expand it".
   */
  default @Nullable String whyNot(T transform, TranslationContext context) {
    return null;
  }

  /** Puts the Datasets of the current transform's outputs into {@code context}. */
  void translate(T transform, TranslationContext context);
}
