package dev.weir.translation.batch;

import dev.weir.translation.Rdds;
import dev.weir.translation.StepFailure;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.joda.time.Instant;

/**
 * {@code Window.Assign}: each element gets the windows its WindowFn assigns to it, one output per
 * input window, keeping timestamp and pane. Without a WindowFn (only the trigger or lateness
 * changed) the elements pass through re-encoded for the new window coder.
 */
public final class WindowAssignTranslator implements TransformTranslator<Window.Assign<?>> {
  @Override
  public boolean emitsNothingFromNothing(Window.Assign<?> transform) {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(Window.Assign<?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    PCollection<Object> out = context.output();
    WindowFn<Object, BoundedWindow> windowFn =
        (WindowFn<Object, BoundedWindow>) out.getWindowingStrategy().getWindowFn();
    AssignWindows assign = new AssignWindows(context.stepName(), windowFn);
    if (context.hasRdd(input)) {
      context.putRdd(out, Rdds.flatMap(context.rdd(input), assign), false);
      return;
    }
    context.putDataset(out, context.dataset(input).flatMap(assign, TranslationContext.encoder(out)));
  }

  /** Each element in the windows {@code windowFn} assigns it (of a Dataset or an RDD). */
  public static final class AssignWindows
      implements FlatMapFunction<WindowedValue<Object>, WindowedValue<Object>> {
    private final String stepName;
    private final WindowFn<Object, BoundedWindow> windowFn;

    public AssignWindows(String stepName, WindowFn<Object, BoundedWindow> windowFn) {
      this.stepName = stepName;
      this.windowFn = windowFn;
    }

    @Override
    public Iterator<WindowedValue<Object>> call(WindowedValue<Object> element) {
      List<WindowedValue<Object>> out = new ArrayList<>();
      for (WindowedValue<Object> single : element.explodeWindows()) {
        BoundedWindow window = single.getWindows().iterator().next();
        Collection<BoundedWindow> windows;
        try {
          windows =
              windowFn.assignWindows(
                  windowFn.new AssignContext() {
                    @Override
                    public Object element() {
                      return single.getValue();
                    }

                    @Override
                    public Instant timestamp() {
                      return single.getTimestamp();
                    }

                    @Override
                    public BoundedWindow window() {
                      return window;
                    }
                  });
        } catch (Exception e) {
          throw new StepFailure(stepName, e);
        }
        out.add(
            WindowedValues.of(single.getValue(), single.getTimestamp(), windows, single.getPaneInfo()));
      }
      return out.iterator();
    }
  }
}
