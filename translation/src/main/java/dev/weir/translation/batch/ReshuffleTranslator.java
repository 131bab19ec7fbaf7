package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/**
 * {@code Reshuffle} and {@code Redistribute}: a round-robin Spark repartition that keeps each
 * element's value, timestamp, windows and pane as they are. Spark's shuffle output is
 * materialised, which gives Beam's checkpointing semantics in batch.
 */
public final class ReshuffleTranslator implements TransformTranslator<PTransform<?, ?>> {
  @Override
  public void translate(PTransform<?, ?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    PCollection<Object> out = context.output();
    int partitions = Integer.parseInt(context.session().conf().get("spark.sql.shuffle.partitions"));
    context.putDataset(out, context.dataset(input).repartition(partitions));
  }
}
