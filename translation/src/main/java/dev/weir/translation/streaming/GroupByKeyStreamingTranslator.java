package dev.weir.translation.streaming;

import dev.weir.translation.TimePolicies;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.Arrays;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.api.java.function.PairFunction;
import org.apache.spark.storage.StorageLevel;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * {@code GroupByKey} in streaming: each epoch the step's elements are shuffled by Beam-encoded key
 * into a fixed number of partitions, so a key always meets its state again, and each partition
 * runs {@link GroupAlsoByWindowPartition}. The result is computed in one Spark job and kept for
 * the epoch: it must be computed exactly once, since computing it changes the state. The step's
 * output watermark is its input watermark held back by the earliest hold of any partition.
 */
public final class GroupByKeyStreamingTranslator implements TransformTranslator<GroupByKey<?, ?>> {
  @Override
  public @Nullable String whyNot(GroupByKey<?, ?> transform, TranslationContext context) {
    return context.policies().whyNot(context.input().getWindowingStrategy());
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(GroupByKey<?, ?> transform, TranslationContext context) {
    StreamingRun run = context.streaming();
    PCollection<KV<Object, Object>> input = context.input();
    PCollection<KV<Object, Iterable<Object>>> output = context.output();
    KvCoder<Object, Object> kvCoder = (KvCoder<Object, Object>) input.getCoder();
    WindowingStrategy<?, BoundedWindow> strategy = (WindowingStrategy<?, BoundedWindow>) input.getWindowingStrategy();
    if (context.policies().windowTriggers() == TimePolicies.WindowTriggers.IGNORE) {
      strategy = strategy.withTrigger(DefaultTrigger.of());
    }
    Coder<? extends BoundedWindow> windowCoder = TranslationContext.windowCoder(input);

    GroupAlsoByWindowPartition.Spec spec = new GroupAlsoByWindowPartition.Spec();
    spec.stepName = context.stepName();
    spec.runId = run.runId();
    spec.epoch = run.epoch();
    spec.strategy = strategy;
    spec.keyCoder = kvCoder.getKeyCoder();
    spec.valueCoder = kvCoder.getValueCoder();
    spec.elementCoder = (Coder) WindowedValues.getFullCoder(kvCoder.getValueCoder(), windowCoder);
    spec.outputCoder = (Coder) WindowedValues.getFullCoder(output.getCoder(), windowCoder);
    spec.options = context.options();
    spec.policies = context.policies();
    spec.inputBefore = run.inputWatermarkBefore();
    spec.inputNow = run.inputWatermark();
    spec.processingTime = run.processingTime();
    spec.holds = new PartitionReports<>();
    // Unnamed: Spark's UI would render a named accumulator's map while tasks add to it.
    context.session().sparkContext().register(spec.holds);

    int partitions = run.keyedPartitions();
    JavaRDD<byte[]> grouped =
        context
            .dataset(input)
            .toJavaRDD()
            .mapToPair(new ByKey(kvCoder.getKeyCoder(), spec.elementCoder, partitions))
            .partitionBy(new ByPartitionIndex(partitions))
            .mapPartitionsWithIndex(new GroupAlsoByWindowPartition(spec), true);
    grouped.persist(StorageLevel.MEMORY_AND_DISK());
    run.unpersistAtEpochEnd(grouped);
    context.session().sparkContext().setJobDescription(context.stepName());
    if (grouped.count() > 0) {
      run.noteActivity();
    }

    Instant out = run.inputWatermark();
    Map<Integer, Long> holds = spec.holds.value();
    if (holds.size() != partitions) {
      throw new IllegalStateException(
          "Step '" + context.stepName() + "': " + holds.size() + " of " + partitions + " partitions reported");
    }
    for (long hold : holds.values()) {
      if (hold < out.getMillis()) {
        out = new Instant(hold);
      }
    }
    run.reportOutputWatermark(out);
    context.putDataset(
        output,
        context.session().createDataset(grouped.map(new Decode<>(spec.outputCoder)).rdd(), TranslationContext.encoder(output)));
  }

  /** (partition, (key bytes, element without its key)). */
  private static final class ByKey
      implements PairFunction<WindowedValue<KV<Object, Object>>, Integer, Tuple2<byte[], byte[]>> {
    private final Coder<Object> keyCoder;
    private final Coder<WindowedValue<Object>> elementCoder;
    private final int partitions;

    ByKey(Coder<Object> keyCoder, Coder<WindowedValue<Object>> elementCoder, int partitions) {
      this.keyCoder = keyCoder;
      this.elementCoder = elementCoder;
      this.partitions = partitions;
    }

    @Override
    public Tuple2<Integer, Tuple2<byte[], byte[]>> call(WindowedValue<KV<Object, Object>> e) throws Exception {
      byte[] key = CoderUtils.encodeToByteArray(keyCoder, e.getValue().getKey());
      byte[] element = CoderUtils.encodeToByteArray(elementCoder, e.withValue(e.getValue().getValue()));
      return new Tuple2<>(Math.floorMod(Arrays.hashCode(key), partitions), new Tuple2<>(key, element));
    }
  }

  /** The partition is computed with the key, from its Beam encoding; this only reads it. */
  private static final class ByPartitionIndex extends Partitioner {
    private final int partitions;

    ByPartitionIndex(int partitions) {
      this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
      return partitions;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ByPartitionIndex && ((ByPartitionIndex) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
      return partitions;
    }
  }

  /** Beam-encoded bytes back to elements. */
  static final class Decode<T> implements Function<byte[], T> {
    private final Coder<T> coder;

    Decode(Coder<T> coder) {
      this.coder = coder;
    }

    @Override
    public T call(byte[] bytes) throws Exception {
      return CoderUtils.decodeFromByteArray(coder, bytes);
    }
  }
}
