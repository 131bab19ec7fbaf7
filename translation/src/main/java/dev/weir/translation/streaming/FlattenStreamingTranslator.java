package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * {@code Flatten.PCollections} in streaming: the union of the inputs' epoch elements, as RDDs.
 * Inputs whose coders differ from the output's need no re-encoding: elements stay objects
 * between steps, and a persisted output is encoded with the output's coder.
 */
public final class FlattenStreamingTranslator implements TransformTranslator<Flatten.PCollections<?>> {
  @Override
  public boolean emitsNothingFromNothing(Flatten.PCollections<?> transform) {
    return true;
  }

  @Override
  public boolean derivesLazily(Flatten.PCollections<?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(Flatten.PCollections<?> transform, TranslationContext context) {
    List<JavaRDD<WindowedValue<Object>>> parts = new ArrayList<>();
    for (PCollection<?> input : context.current().getMainInputs().values()) {
      if (!context.isEmpty(input)) {
        parts.add(context.rdd((PCollection<Object>) input));
      }
    }
    PCollection<Object> out = context.output();
    if (parts.isEmpty()) {
      context.putEmpty(out);
      return;
    }
    JavaRDD<WindowedValue<Object>> union =
        parts.size() == 1
            ? parts.get(0)
            : JavaSparkContext.fromSparkContext(context.session().sparkContext()).union(parts.toArray(new JavaRDD[0]));
    context.putRdd(out, union, false);
  }
}
