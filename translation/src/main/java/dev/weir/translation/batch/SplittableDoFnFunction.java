package dev.weir.translation.batch;

import dev.weir.translation.runtime.DoFnBundle;
import dev.weir.translation.runtime.DoFnSpec;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnInvoker;
import org.apache.beam.sdk.transforms.reflect.DoFnInvokers;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.transforms.splittabledofn.SplitResult;
import org.apache.beam.sdk.transforms.splittabledofn.WatermarkEstimator;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.WindowedValueMultiReceiver;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/**
 * Runs a bounded splittable DoFn over one Spark partition of (element, restriction) pairs: each
 * restriction is processed whole, in every window of its element. When the DoFn asks to resume,
 * the rest of the restriction is split off and processed next, after the delay it asked for.
 * In batch nothing needs checkpointing in the middle, so no state or timers are involved; bundle
 * finalizers run at each such resume (a checkpoint ends a bundle) and when the task succeeded.
 */
final class SplittableDoFnFunction
    implements MapPartitionsFunction<WindowedValue<KV<byte[], KV<Object, Object>>>, WindowedValue<Object>> {
  private final DoFnSpec spec;

  SplittableDoFnFunction(DoFnSpec spec) {
    this.spec = spec;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<WindowedValue<KV<byte[], KV<Object, Object>>>> input) {
    return new Bundle(input);
  }

  private final class Bundle extends DoFnBundle implements RestrictionArguments.Environment {
    private final Iterator<WindowedValue<KV<byte[], KV<Object, Object>>>> input;
    private final DoFnRunner<Object, Object> bundleRunner;
    private final DoFnInvoker<Object, Object> invoker;

    Bundle(Iterator<WindowedValue<KV<byte[], KV<Object, Object>>>> input) {
      super(SplittableDoFnFunction.this.spec);
      this.input = input;
      this.invoker = DoFnInvokers.invokerFor(fn);
      bundleRunner = simpleRunner(new FinalizingContext());
      startBundle(bundleRunner);
    }

    @Override
    protected boolean processNext() throws Exception {
      if (!input.hasNext()) {
        return false;
      }
      WindowedValue<KV<byte[], KV<Object, Object>>> next = input.next();
      KV<Object, Object> elementAndRestriction = next.getValue().getValue();
      for (WindowedValue<Object> element : next.withValue(elementAndRestriction.getKey()).explodeWindows()) {
        process(element, elementAndRestriction.getValue());
      }
      return true;
    }

    private void process(WindowedValue<Object> element, Object initialRestriction) throws Exception {
      RestrictionArguments arguments =
          new RestrictionArguments(fn, element, element.getWindows().iterator().next(), spec.options.get(), this);
      Object restriction = initialRestriction;
      Object watermarkState = invoker.invokeGetInitialWatermarkEstimatorState(arguments.with(restriction, null));
      while (true) {
        arguments.with(restriction, watermarkState);
        RestrictionTracker<Object, Object> tracker = invoker.invokeNewTracker(arguments);
        WatermarkEstimator<Object> estimator = invoker.invokeNewWatermarkEstimator(arguments);
        DoFn.ProcessContinuation continuation = invoker.invokeProcessElement(arguments.with(tracker, estimator));
        if (!continuation.shouldResume()) {
          return;
        }
        watermarkState = estimator.getState();
        SplitResult<Object> split = tracker.trySplit(0);
        if (split == null) {
          return;
        }
        restriction = split.getResidual();
        runFinalizers();
        TimeUnit.MILLISECONDS.sleep(continuation.resumeDelay().getMillis());
      }
    }

    @Override
    protected void finishInput() {
      bundleRunner.finishBundle();
    }

    @Override
    public WindowedValueMultiReceiver receiver() {
      return this;
    }

    @Override
    public TupleTag<?> mainOutputTag() {
      return spec.outputTags.get(0);
    }

    @Override
    public Map<TupleTag<?>, Coder<?>> outputCoders() {
      return spec.outputCoders;
    }

    @Override
    public Map<String, PCollectionView<?>> sideInputMapping() {
      return spec.sideInputMapping;
    }

    @Override
    public <T> T sideInput(PCollectionView<T> view, BoundedWindow window) {
      return sideInputReader().get(view, window);
    }

    @Override
    public DoFn.BundleFinalizer bundleFinalizer() {
      return Bundle.super.bundleFinalizer();
    }

    @Override
    public String stepName() {
      return spec.stepName;
    }

    /** For {@code @StartBundle} and {@code @FinishBundle}: no state, no timers. */
    private final class FinalizingContext implements StepContext {
      @Override
      public StateInternals stateInternals() {
        throw new UnsupportedOperationException("A splittable DoFn has no state in " + spec.stepName);
      }

      @Override
      public TimerInternals timerInternals() {
        throw new UnsupportedOperationException("A splittable DoFn has no timers in " + spec.stepName);
      }

      @Override
      public DoFn.BundleFinalizer bundleFinalizer() {
        return Bundle.super.bundleFinalizer();
      }
    }
  }
}
