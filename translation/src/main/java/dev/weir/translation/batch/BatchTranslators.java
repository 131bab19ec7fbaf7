package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslatorRegistry;
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

/** Batch's translators: the one map of transform class to translator when every input is bounded. */
public final class BatchTranslators implements TranslatorRegistry {
  public static final BatchTranslators INSTANCE = new BatchTranslators();

  private final Map<Class<?>, TransformTranslator<?>> translators = new HashMap<>();

  private BatchTranslators() {
    translators.put(Impulse.class, new ImpulseTranslator());
    ReadBoundedTranslator read = new ReadBoundedTranslator();
    translators.put(Read.Bounded.class, read);
    translators.put(SplittableParDo.PrimitiveBoundedRead.class, read);
    translators.put(ParDo.MultiOutput.class, new ParDoTranslator());
    translators.put(GroupByKey.class, new GroupByKeyTranslator());
    translators.put(Combine.PerKey.class, new CombinePerKeyTranslator());
    translators.put(Flatten.PCollections.class, new FlattenTranslator());
    translators.put(Window.Assign.class, new WindowAssignTranslator());
    ReshuffleTranslator reshuffle = new ReshuffleTranslator();
    translators.put(Reshuffle.class, reshuffle);
    translators.put(Redistribute.RedistributeByKey.class, reshuffle);
    translators.put(Redistribute.RedistributeArbitrarily.class, reshuffle);
    translators.put(View.CreatePCollectionView.class, new CreateViewTranslator());
    translators.put(SplittableParDo.ProcessKeyedElements.class, new SplittableProcessTranslator());
  }

  @Override
  public boolean streaming() {
    return false;
  }

  @Override
  public @Nullable TransformTranslator<PTransform<?, ?>> translatorFor(PTransform<?, ?> transform) {
    return translatorOf(transform.getClass());
  }

  /** The translator of transforms of class {@code transformClass}, or null. */
  @SuppressWarnings("unchecked")
  public @Nullable TransformTranslator<PTransform<?, ?>> translatorOf(Class<?> transformClass) {
    return (TransformTranslator<PTransform<?, ?>>) translators.get(transformClass);
  }
}
