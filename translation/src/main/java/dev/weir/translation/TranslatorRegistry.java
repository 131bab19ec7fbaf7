package dev.weir.translation;

import dev.weir.translation.batch.CombinePerKeyTranslator;
import dev.weir.translation.batch.CreateViewTranslator;
import dev.weir.translation.batch.FlattenTranslator;
import dev.weir.translation.batch.GroupByKeyTranslator;
import dev.weir.translation.batch.ImpulseTranslator;
import dev.weir.translation.batch.ParDoTranslator;
import dev.weir.translation.batch.ReadBoundedTranslator;
import dev.weir.translation.batch.ReshuffleTranslator;
import dev.weir.translation.batch.SplittableProcessTranslator;
import dev.weir.translation.batch.WindowAssignTranslator;
import dev.weir.translation.streaming.BoundedSourceStreamingTranslator;
import dev.weir.translation.streaming.CombinePerKeyStreamingTranslator;
import dev.weir.translation.streaming.FlattenStreamingTranslator;
import dev.weir.translation.streaming.GroupByKeyStreamingTranslator;
import dev.weir.translation.streaming.ParDoStreamingTranslator;
import dev.weir.translation.streaming.SplittableProcessStreamingTranslator;
import dev.weir.translation.streaming.TestStreamTranslator;
import dev.weir.translation.streaming.UnboundedReadTranslator;
import dev.weir.translation.streaming.WindowAssignStreamingTranslator;
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
 * The one place that says which translator handles which Beam transform, in batch and in
 * streaming. Composites
 * listed here are translated whole (when their translator agrees); every other composite is
 * expanded into its parts.
 */
final class TranslatorRegistry {
  private static final Map<Class<?>, TransformTranslator<?>> BATCH = new HashMap<>();

  static {
    BATCH.put(Impulse.class, new ImpulseTranslator());
    ReadBoundedTranslator read = new ReadBoundedTranslator();
    BATCH.put(Read.Bounded.class, read);
    BATCH.put(SplittableParDo.PrimitiveBoundedRead.class, read);
    BATCH.put(ParDo.MultiOutput.class, new ParDoTranslator());
    BATCH.put(GroupByKey.class, new GroupByKeyTranslator());
    BATCH.put(Combine.PerKey.class, new CombinePerKeyTranslator());
    BATCH.put(Flatten.PCollections.class, new FlattenTranslator());
    BATCH.put(Window.Assign.class, new WindowAssignTranslator());
    ReshuffleTranslator reshuffle = new ReshuffleTranslator();
    BATCH.put(Reshuffle.class, reshuffle);
    BATCH.put(Redistribute.RedistributeByKey.class, reshuffle);
    BATCH.put(Redistribute.RedistributeArbitrarily.class, reshuffle);
    BATCH.put(View.CreatePCollectionView.class, new CreateViewTranslator());
    BATCH.put(SplittableParDo.ProcessKeyedElements.class, new SplittableProcessTranslator());
  }

  private static final Map<Class<?>, TransformTranslator<?>> STREAMING = new HashMap<>();

  static {
    // Bounded sources are read whole in the first epoch; stateless steps run per epoch as in
    // batch, over RDDs of the epoch's elements; groupings keep state across epochs; Combine.PerKey
    // combines on the map side first, or, where that could change its result, expands to
    // GroupByKey and a ParDo.
    STREAMING.put(Impulse.class, new BoundedSourceStreamingTranslator<>(new ImpulseTranslator()));
    BoundedSourceStreamingTranslator<?> boundedRead = new BoundedSourceStreamingTranslator<>(new ReadBoundedTranslator());
    STREAMING.put(Read.Bounded.class, boundedRead);
    STREAMING.put(SplittableParDo.PrimitiveBoundedRead.class, boundedRead);
    UnboundedReadTranslator<?> unboundedRead = new UnboundedReadTranslator<>();
    STREAMING.put(Read.Unbounded.class, unboundedRead);
    STREAMING.put(SplittableParDo.PrimitiveUnboundedRead.class, unboundedRead);
    STREAMING.put(TestStream.class, new TestStreamTranslator<>());
    STREAMING.put(ParDo.MultiOutput.class, new ParDoStreamingTranslator());
    STREAMING.put(GroupByKey.class, new GroupByKeyStreamingTranslator());
    STREAMING.put(Combine.PerKey.class, new CombinePerKeyStreamingTranslator());
    STREAMING.put(SplittableParDo.ProcessKeyedElements.class, new SplittableProcessStreamingTranslator());
    STREAMING.put(Flatten.PCollections.class, new FlattenStreamingTranslator());
    STREAMING.put(Window.Assign.class, new WindowAssignStreamingTranslator());
    for (Class<?> stateless :
        List.of(
            Reshuffle.class,
            Redistribute.RedistributeByKey.class,
            Redistribute.RedistributeArbitrarily.class,
            View.CreatePCollectionView.class)) {
      STREAMING.put(stateless, BATCH.get(stateless));
    }
  }

  private TranslatorRegistry() {}

  @SuppressWarnings("unchecked")
  static @Nullable TransformTranslator<PTransform<?, ?>> streaming(PTransform<?, ?> transform) {
    return (TransformTranslator<PTransform<?, ?>>) STREAMING.get(transform.getClass());
  }

  @SuppressWarnings("unchecked")
  static @Nullable TransformTranslator<PTransform<?, ?>> batch(PTransform<?, ?> transform) {
    return (TransformTranslator<PTransform<?, ?>>) BATCH.get(transform.getClass());
  }
}
