package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.batch.WindowAssignTranslator;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.PCollection;

/**
 * {@code Window.Assign} in streaming: as in batch ({@link WindowAssignTranslator}), over the
 * epoch's elements as an RDD. Elements stay objects between steps, so a new window coder needs
 * no re-encoding.
 */
public final class WindowAssignStreamingTranslator implements TransformTranslator<Window.Assign<?>> {
  @Override
  public boolean emitsNothingFromNothing(Window.Assign<?> transform) {
    return true;
  }

  @Override
  public boolean derivesLazily(Window.Assign<?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(Window.Assign<?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    PCollection<Object> out = context.output();
    WindowFn<Object, BoundedWindow> windowFn =
        (WindowFn<Object, BoundedWindow>) out.getWindowingStrategy().getWindowFn();
    context.putRdd(
        out, Rdds.flatMap(context.rdd(input), new WindowAssignTranslator.AssignWindows(context.stepName(), windowFn)), false);
  }
}
