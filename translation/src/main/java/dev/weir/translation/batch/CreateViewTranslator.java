package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;

/**
 * {@code CreatePCollectionView}: remembers which data (Dataset or RDD) backs the view. The side input is
 * collected and broadcast when the first ParDo that reads it is translated.
 */
public final class CreateViewTranslator implements TransformTranslator<View.CreatePCollectionView<?, ?>> {
  @Override
  public void translate(View.CreatePCollectionView<?, ?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    context.putView(transform.getView(), input);
    context.putAlias(context.output(), input);
  }
}
