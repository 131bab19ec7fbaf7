package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.transforms.PTransform;

/**
 * A streaming translator whose step runs as an operator built once per run ({@link StepOperator}).
 * A translator that is not one is translated again every epoch ({@link EpochLoop}): steps that
 * build nothing worth keeping (a Flatten, a window assignment).
 */
interface OperatorTranslator<T extends PTransform<?, ?>> extends TransformTranslator<T> {
  /** The step's operator, not opened yet. */
  StepOperator operator(T transform);

  /** One epoch of a new operator: what translating the step once means. */
  @Override
  default void translate(T transform, TranslationContext context) {
    StepOperator operator = operator(transform);
    operator.open(context);
    operator.startEpoch(StreamingRun.of(context));
    operator.processEpoch(context);
  }
}
