package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslatorRegistry;
import dev.weir.translation.batch.BatchTranslators;
import dev.weir.translation.batch.ImpulseTranslator;
import dev.weir.translation.batch.ReadBoundedTranslator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Redistribute;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Streaming's translators: the one map of transform class to translator when some input is
 * unbounded. Bounded sources are read whole in the first epoch; stateless steps run per epoch as
 * in batch, over RDDs of the epoch's elements; groupings keep state across epochs; Combine.PerKey
 * combines on the map side first, or, where that could change its result, expands to GroupByKey
 * and a ParDo.
 */
public final class StreamingTranslators implements TranslatorRegistry {
  public static final StreamingTranslators INSTANCE = new StreamingTranslators();

  private final Map<Class<?>, TransformTranslator<?>> translators = new HashMap<>();

  private StreamingTranslators() {
    translators.put(Impulse.class, new BoundedSourceStreamingTranslator<>(new ImpulseTranslator()));
    BoundedSourceStreamingTranslator<?> boundedRead = new BoundedSourceStreamingTranslator<>(new ReadBoundedTranslator());
    translators.put(Read.Bounded.class, boundedRead);
    translators.put(SplittableParDo.PrimitiveBoundedRead.class, boundedRead);
    UnboundedReadTranslator<?> unboundedRead = new UnboundedReadTranslator<>();
    translators.put(Read.Unbounded.class, unboundedRead);
    translators.put(SplittableParDo.PrimitiveUnboundedRead.class, unboundedRead);
    translators.put(TestStream.class, new TestStreamTranslator<>());
    translators.put(ParDo.MultiOutput.class, new ParDoStreamingTranslator());
    translators.put(GroupByKey.class, new GroupByKeyStreamingTranslator());
    translators.put(Combine.PerKey.class, new CombinePerKeyStreamingTranslator());
    translators.put(SplittableParDo.ProcessKeyedElements.class, new SplittableProcessStreamingTranslator());
    translators.put(Flatten.PCollections.class, new FlattenStreamingTranslator());
    translators.put(Window.Assign.class, new WindowAssignStreamingTranslator());
    // Stateless, and the same in both modes.
    for (Class<?> stateless :
        List.of(
            Reshuffle.class,
            Redistribute.RedistributeByKey.class,
            Redistribute.RedistributeArbitrarily.class,
            View.CreatePCollectionView.class)) {
      translators.put(stateless, BatchTranslators.INSTANCE.translatorOf(stateless));
    }
  }

  @Override
  public boolean streaming() {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public @Nullable TransformTranslator<PTransform<?, ?>> translatorFor(PTransform<?, ?> transform) {
    return (TransformTranslator<PTransform<?, ?>>) translators.get(transform.getClass());
  }
}
