package dev.weir.translation.batch;

import dev.weir.encoders.CoderBytes;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.functions;
import scala.Tuple2;

/**
 * {@code Reshuffle} and {@code Redistribute}: a Spark shuffle that keeps each element's value,
 * timestamp, windows and pane as they are. Keyed input is hash-partitioned by the Beam-encoded
 * key, so that the elements of a key stay together and in the order they were produced in
 * (Beam's per-key ordered delivery); other input is spread round-robin. Spark's shuffle output
 * is materialised, which gives Beam's checkpointing semantics in batch.
 */
public final class ReshuffleTranslator implements TransformTranslator<PTransform<?, ?>> {
  @Override
  public boolean emitsNothingFromNothing(PTransform<?, ?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(PTransform<?, ?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    PCollection<Object> out = context.output();
    int partitions = context.shufflePartitions();
    Dataset<WindowedValue<Object>> in = context.dataset(input);
    if (!(input.getCoder() instanceof KvCoder)) {
      context.putDataset(out, in.repartition(partitions));
      return;
    }
    Coder<Object> keyCoder = ((KvCoder<Object, Object>) (Coder<?>) input.getCoder()).getKeyCoder();
    Encoder<Tuple2<byte[], WindowedValue<Object>>> keyed =
        Encoders.tuple(Encoders.BINARY(), TranslationContext.encoder(input));
    context.putDataset(
        out,
        in.map(new WithKeyBytes(keyCoder), keyed)
            .repartition(partitions, functions.col("_1"))
            .map(new WithoutKeyBytes(), TranslationContext.encoder(out)));
  }

  /** Pairs an element with the Beam encoding of its key. */
  static final class WithKeyBytes
      implements MapFunction<WindowedValue<Object>, Tuple2<byte[], WindowedValue<Object>>> {
    private final CoderBytes<Object> keyCoder;

    WithKeyBytes(Coder<Object> keyCoder) {
      this.keyCoder = CoderBytes.of(keyCoder);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Tuple2<byte[], WindowedValue<Object>> call(WindowedValue<Object> value) throws Exception {
      return new Tuple2<>(
          keyCoder.encode(((KV<Object, Object>) value.getValue()).getKey()), value);
    }
  }

  private static final class WithoutKeyBytes
      implements MapFunction<Tuple2<byte[], WindowedValue<Object>>, WindowedValue<Object>> {
    @Override
    public WindowedValue<Object> call(Tuple2<byte[], WindowedValue<Object>> pair) {
      return pair._2();
    }
  }
}
