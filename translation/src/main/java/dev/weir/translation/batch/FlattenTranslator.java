package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;

/**
 * {@code Flatten.PCollections}: a union of the inputs' RDDs when they all are RDDs; otherwise of
 * their Datasets, where an input whose coder differs from the output's is re-encoded first, so
 * that every part has the output's schema. No inputs give an empty Dataset.
 */
public final class FlattenTranslator implements TransformTranslator<Flatten.PCollections<?>> {
  @Override
  public boolean emitsNothingFromNothing(Flatten.PCollections<?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(Flatten.PCollections<?> transform, TranslationContext context) {
    PCollection<Object> out = context.output();
    List<JavaRDD<WindowedValue<Object>>> rdds = new ArrayList<>();
    for (PCollection<?> pc : context.current().getMainInputs().values()) {
      if (context.hasRdd(pc)) {
        rdds.add(context.rdd((PCollection<Object>) pc));
      }
    }
    if (!rdds.isEmpty() && rdds.size() == context.current().getMainInputs().size()) {
      // Objects in RDDs need no common schema: their union is the output as it is.
      context.putRdd(
          out,
          rdds.size() == 1
              ? rdds.get(0)
              : JavaSparkContext.fromSparkContext(context.session().sparkContext()).union(rdds.toArray(new JavaRDD[0])),
          false);
      return;
    }
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
