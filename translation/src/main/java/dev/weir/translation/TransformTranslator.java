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

  /**
   * Whether {@code transform}, given no element, emits none and changes nothing that a later
   * epoch sees: no state, no timers, no side-input wait. A streaming epoch in which every main
   * input of such a step is known empty ({@link TranslationContext#isEmpty}) skips it, and its
   * outputs are empty too (Beam lets a runner start no bundle where there is no element).
   */
  default boolean emitsNothingFromNothing(T transform) {
    return false;
  }

  /**
   * Whether {@code transform}, in a streaming epoch, only derives its outputs lazily from its main
   * inputs' elements: translating it runs no Spark job, and it reads no watermark of this epoch
   * (its own output watermark follows its inputs'). A source followed by one chain of such steps,
   * without fan-out, is read within the epoch's one leaves job instead of a job of its own.
   */
  default boolean derivesLazily(T transform) {
    return false;
  }

  /**
   * Whether {@code transform}, in batch, can run in one pass over its input together with that
   * input's other readers: it maps each element of its one main input on its own (a stateless
   * ParDo without side inputs). When every reader of a PCollection can, the PCollection is not
   * persisted for them; one pass over it runs them all and only their outputs are kept
   * ({@link TranslationContext#sharedPassReaders}).
   */
  default boolean sharesInputPass(T transform) {
    return false;
  }

  /** Puts the Datasets of the current transform's outputs into {@code context}. */
  void translate(T transform, TranslationContext context);
}
