package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A bounded source ({@code Impulse}, a bounded read) in streaming: read whole in the first epoch,
 * by its batch translator, then empty, with its watermark at the end of time. So a batch pipeline
 * runs in streaming mode too, and finishes when every watermark reaches the end of time.
 */
public final class BoundedSourceStreamingTranslator<T extends PTransform<?, ?>> implements TransformTranslator<T> {
  private final TransformTranslator<T> batch;

  public BoundedSourceStreamingTranslator(TransformTranslator<T> batch) {
    this.batch = batch;
  }

  /** Whether the source is still to be read (in the first epoch): one flag, as a boolean. */
  private static final StepProgress<boolean[]> PENDING =
      new StepProgress<>(
          "pending",
          org.apache.beam.sdk.coders.DelegateCoder.of(
              org.apache.beam.sdk.coders.BooleanCoder.of(), b -> b[0], b -> new boolean[] {b}),
          () -> new boolean[] {true});

  @Override
  public @Nullable String whyNot(T transform, TranslationContext context) {
    return batch.whyNot(transform, context);
  }

  @Override
  public void translate(T transform, TranslationContext context) {
    StreamingRun run = StreamingRun.of(context);
    boolean[] pending = run.progress(PENDING);
    if (pending[0]) {
      pending[0] = false;
      batch.translate(transform, context);
      run.noteActivity();
    } else {
      PCollection<Object> out = context.output();
      context.putEmpty(out);
    }
    run.reportOutputWatermark(BoundedWindow.TIMESTAMP_MAX_VALUE);
  }
}
