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
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.io.Read;
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
 * The one place that says which translator handles which Beam transform in batch. Composites
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

  private TranslatorRegistry() {}

  @SuppressWarnings("unchecked")
  static @Nullable TransformTranslator<PTransform<?, ?>> batch(PTransform<?, ?> transform) {
    return (TransformTranslator<PTransform<?, ?>>) BATCH.get(transform.getClass());
  }
}
