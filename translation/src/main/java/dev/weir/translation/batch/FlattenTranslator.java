package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;

/**
 * {@code Flatten.PCollections}: a union of the inputs' Datasets. An input whose coder differs
 * from the output's is re-encoded first, so that every part has the output's schema; no inputs
 * give an empty Dataset.
 */
public final class FlattenTranslator implements TransformTranslator<Flatten.PCollections<?>> {
  @Override
  public boolean emitsNothingFromNothing(Flatten.PCollections<?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(Flatten.PCollections<?> transform, TranslationContext context) {
    PCollection<Object> out = context.output();
    Encoder<WindowedValue<Object>> encoder = TranslationContext.encoder(out);
    Dataset<WindowedValue<Object>> union = null;
    for (PCollection<?> pc : context.current().getMainInputs().values()) {
      PCollection<Object> input = (PCollection<Object>) pc;
      Dataset<WindowedValue<Object>> part = context.dataset(input);
      if (!input.getCoder().equals(out.getCoder())
          || !TranslationContext.windowCoder(input).equals(TranslationContext.windowCoder(out))) {
        part = part.map(new Identity(), encoder);
      }
      union = union == null ? part : union.union(part);
    }
    if (union == null) {
      union = context.session().emptyDataset(encoder);
    }
    context.putDataset(out, union);
  }

  private static final class Identity implements MapFunction<WindowedValue<Object>, WindowedValue<Object>> {
    @Override
    public WindowedValue<Object> call(WindowedValue<Object> value) {
      return value;
    }
  }
}
