package dev.weir.translation.batch;

import java.util.Collection;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFnOutputReceivers;
import org.apache.beam.sdk.transforms.reflect.DoFnInvoker;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.transforms.splittabledofn.WatermarkEstimator;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.OutputBuilderSuppliers;
import org.apache.beam.sdk.util.WindowedValueMultiReceiver;
import org.apache.beam.sdk.values.CausedByDrain;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.joda.time.Instant;

/**
 * What a splittable DoFn's methods see for one element, in one window, with one restriction:
 * the element and its timestamp, window and pane; the restriction, its tracker and watermark
 * estimator; side inputs; outputs (which keep the element's window and pane); and the bundle
 * finalizer of the Spark task.
 */
final class RestrictionArguments extends DoFnInvoker.BaseArgumentProvider<Object, Object> {
  private final DoFn<Object, Object> fn;
  private final WindowedValue<Object> element;
  private final BoundedWindow window;
  private final PipelineOptions options;
  private final Environment environment;
  private Object restriction;
  private Object watermarkEstimatorState;
  private RestrictionTracker<?, ?> tracker;
  private WatermarkEstimator<?> watermarkEstimator;

  /** What stays the same for all elements of a bundle. */
  interface Environment {
    WindowedValueMultiReceiver receiver();

    TupleTag<?> mainOutputTag();

    Map<TupleTag<?>, Coder<?>> outputCoders();

    Map<String, PCollectionView<?>> sideInputMapping();

    <T> T sideInput(PCollectionView<T> view, BoundedWindow window);

    DoFn.BundleFinalizer bundleFinalizer();

    String stepName();
  }

  RestrictionArguments(
      DoFn<Object, Object> fn,
      WindowedValue<Object> element,
      BoundedWindow window,
      PipelineOptions options,
      Environment environment) {
    this.fn = fn;
    this.element = element;
    this.window = window;
    this.options = options;
    this.environment = environment;
  }

  RestrictionArguments with(Object restriction, Object watermarkEstimatorState) {
    this.restriction = restriction;
    this.watermarkEstimatorState = watermarkEstimatorState;
    this.tracker = null;
    this.watermarkEstimator = null;
    return this;
  }

  RestrictionArguments with(RestrictionTracker<?, ?> tracker, WatermarkEstimator<?> watermarkEstimator) {
    this.tracker = tracker;
    this.watermarkEstimator = watermarkEstimator;
    return this;
  }

  @Override
  public Object element(DoFn<Object, Object> doFn) {
    return element.getValue();
  }

  @Override
  public Instant timestamp(DoFn<Object, Object> doFn) {
    return element.getTimestamp();
  }

  @Override
  public BoundedWindow window() {
    return window;
  }

  @Override
  public PaneInfo paneInfo(DoFn<Object, Object> doFn) {
    return element.getPaneInfo();
  }

  @Override
  public PipelineOptions pipelineOptions() {
    return options;
  }

  @Override
  public Object restriction() {
    return restriction;
  }

  @Override
  public RestrictionTracker<?, ?> restrictionTracker() {
    return tracker;
  }

  @Override
  public Object watermarkEstimatorState() {
    return watermarkEstimatorState;
  }

  @Override
  public WatermarkEstimator<?> watermarkEstimator() {
    return watermarkEstimator;
  }

  @Override
  public Object sideInput(String tagId) {
    PCollectionView<?> view = environment.sideInputMapping().get(tagId);
    if (view == null) {
      throw new IllegalArgumentException("Step '" + environment.stepName() + "' has no side input " + tagId);
    }
    return environment.sideInput(view, window);
  }

  @Override
  public DoFn.BundleFinalizer bundleFinalizer() {
    return environment.bundleFinalizer();
  }

  @Override
  @SuppressWarnings("unchecked")
  public DoFn.OutputReceiver<Object> outputReceiver(DoFn<Object, Object> doFn) {
    return DoFnOutputReceivers.windowedReceiver(
        processContext(doFn), OutputBuilderSuppliers.supplierForElement(element),
        (TupleTag<Object>) environment.mainOutputTag());
  }

  @Override
  public DoFn.MultiOutputReceiver taggedOutputReceiver(DoFn<Object, Object> doFn) {
    return DoFnOutputReceivers.windowedMultiReceiver(
        processContext(doFn), OutputBuilderSuppliers.supplierForElement(element), environment.outputCoders());
  }

  @Override
  public DoFn<Object, Object>.ProcessContext processContext(DoFn<Object, Object> doFn) {
    return fn.new ProcessContext() {
      @Override
      public Object element() {
        return element.getValue();
      }

      @Override
      public <T> T sideInput(PCollectionView<T> view) {
        return environment.sideInput(view, window);
      }

      @Override
      public Instant timestamp() {
        return element.getTimestamp();
      }

      @Override
      public PaneInfo pane() {
        return element.getPaneInfo();
      }

      @Override
      public String currentRecordId() {
        return element.getRecordId();
      }

      @Override
      public Long currentRecordOffset() {
        return element.getRecordOffset();
      }

      @Override
      public CausedByDrain causedByDrain() {
        return element.causedByDrain();
      }

      @Override
      public PipelineOptions getPipelineOptions() {
        return options;
      }

      @Override
      public void output(Object output) {
        outputWithTimestamp(output, element.getTimestamp());
      }

      @Override
      public void outputWithTimestamp(Object output, Instant timestamp) {
        outputWindowedValue(output, timestamp, java.util.List.of(window), element.getPaneInfo());
      }

      @Override
      public void outputWindowedValue(
          Object output, Instant timestamp, Collection<? extends BoundedWindow> windows, PaneInfo pane) {
        outputWindowedValue(WindowedValues.of(output, timestamp, windows, pane));
      }

      @Override
      public <T> void output(TupleTag<T> tag, T output) {
        outputWithTimestamp(tag, output, element.getTimestamp());
      }

      @Override
      public <T> void outputWithTimestamp(TupleTag<T> tag, T output, Instant timestamp) {
        outputWindowedValue(tag, output, timestamp, java.util.List.of(window), element.getPaneInfo());
      }

      @Override
      public <T> void outputWindowedValue(
          TupleTag<T> tag, T output, Instant timestamp, Collection<? extends BoundedWindow> windows, PaneInfo pane) {
        outputWindowedValue(tag, WindowedValues.of(output, timestamp, windows, pane));
      }

      @Override
      public <T> void outputWindowedValue(TupleTag<T> tag, WindowedValue<T> value) {
        environment.receiver().output(tag, value);
      }

      @Override
      @SuppressWarnings("unchecked")
      public void outputWindowedValue(WindowedValue<Object> value) {
        environment.receiver().output((TupleTag<Object>) environment.mainOutputTag(), value);
      }
    };
  }

  @Override
  public String getErrorContext() {
    return "splittable DoFn of step '" + environment.stepName() + "'";
  }
}
