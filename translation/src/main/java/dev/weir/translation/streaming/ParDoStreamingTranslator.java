package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.batch.ParDoTranslator;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code ParDo} in streaming: a stateless DoFn runs on each epoch's elements as in batch. State
 * and timers across epochs, and side inputs that fill over time, are not supported in streaming
 * yet, and are refused before the pipeline starts.
 */
public final class ParDoStreamingTranslator implements TransformTranslator<ParDo.MultiOutput<?, ?>> {
  private final ParDoTranslator batch = new ParDoTranslator();

  @Override
  public @Nullable String whyNot(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    DoFn<?, ?> fn = transform.getFn();
    if (DoFnSignatures.isStateful(fn) || DoFnSignatures.requiresTimeSortedInput(fn)) {
      return "its DoFn " + fn.getClass().getName() + " uses state or timers, which WeirRunner does not "
          + "support in streaming mode yet (it does in batch: --runtimeMode=BATCH for bounded input)";
    }
    if (!transform.getSideInputs().isEmpty()) {
      return "it reads side inputs " + transform.getSideInputs().keySet() + ", which WeirRunner does not "
          + "support in streaming mode yet (it does in batch: --runtimeMode=BATCH for bounded input)";
    }
    return batch.whyNot(transform, context);
  }

  @Override
  public void translate(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    batch.translate(transform, context);
  }
}
