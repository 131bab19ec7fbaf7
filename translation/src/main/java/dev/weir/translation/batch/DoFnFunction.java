package dev.weir.translation.batch;

import dev.weir.translation.BroadcastSideInputReader;
import dev.weir.translation.SideInputData;
import dev.weir.translation.StepFailure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.DoFnRunners;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFnSchemaInformation;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.transforms.reflect.DoFnInvoker;
import org.apache.beam.sdk.transforms.reflect.DoFnInvokers;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.util.WindowedValueMultiReceiver;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a stateless DoFn over one Spark partition, which is one Beam bundle: a fresh DoFn
 * instance is set up, sees {@code startBundle}, every element, {@code finishBundle}, and is torn
 * down, also when the task fails or ends early. Outputs are produced lazily as the partition is
 * consumed. With several output tags, each output is a {@link RawUnionValue} whose union tag is
 * the position of its tag in {@code outputTags}.
 */
final class DoFnFunction implements MapPartitionsFunction<WindowedValue<Object>, WindowedValue<Object>> {
  private static final Logger LOG = LoggerFactory.getLogger(DoFnFunction.class);

  private final String stepName;
  private final byte[] serializedFn;
  private final SerializablePipelineOptions options;
  private final Coder<Object> inputCoder;
  private final Map<TupleTag<?>, Coder<?>> outputCoders;
  private final List<TupleTag<?>> outputTags;
  private final WindowingStrategy<?, ?> windowingStrategy;
  private final DoFnSchemaInformation schemaInformation;
  private final Map<String, PCollectionView<?>> sideInputMapping;
  private final List<SideInputData> sideInputs;

  DoFnFunction(
      String stepName,
      DoFn<?, ?> fn,
      SerializablePipelineOptions options,
      Coder<Object> inputCoder,
      Map<TupleTag<?>, Coder<?>> outputCoders,
      List<TupleTag<?>> outputTags,
      WindowingStrategy<?, ?> windowingStrategy,
      DoFnSchemaInformation schemaInformation,
      Map<String, PCollectionView<?>> sideInputMapping,
      List<SideInputData> sideInputs) {
    this.stepName = stepName;
    this.serializedFn = SerializableUtils.serializeToByteArray(fn);
    this.options = options;
    this.inputCoder = inputCoder;
    this.outputCoders = outputCoders;
    this.outputTags = outputTags;
    this.windowingStrategy = windowingStrategy;
    this.schemaInformation = schemaInformation;
    this.sideInputMapping = sideInputMapping;
    this.sideInputs = sideInputs;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<WindowedValue<Object>> input) {
    return new Bundle(input);
  }

  /** One bundle: an iterator that drives the DoFn as its outputs are pulled. */
  private final class Bundle implements Iterator<WindowedValue<Object>>, WindowedValueMultiReceiver {
    private final Iterator<WindowedValue<Object>> input;
    private final ArrayDeque<WindowedValue<Object>> buffer = new ArrayDeque<>();
    private final List<DoFn.BundleFinalizer.Callback> finalizers = new ArrayList<>();
    private final boolean tagged = outputTags.size() > 1;
    private DoFnInvoker<Object, Object> invoker;
    private DoFnRunner<Object, Object> runner;
    private boolean finished;
    private boolean tornDown;

    Bundle(Iterator<WindowedValue<Object>> input) {
      this.input = input;
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((TaskContext ctx) -> tearDown());
      }
      start();
    }

    @SuppressWarnings("unchecked")
    private void start() {
      try {
        DoFn<Object, Object> fn =
            (DoFn<Object, Object>) SerializableUtils.deserializeFromByteArray(serializedFn, stepName);
        invoker = DoFnInvokers.tryInvokeSetupFor(fn, options.get());
        runner =
            DoFnRunners.simpleRunner(
                options.get(),
                fn,
                new BroadcastSideInputReader(sideInputs),
                this,
                (TupleTag<Object>) outputTags.get(0),
                outputTags.subList(1, outputTags.size()),
                new StatelessStepContext(),
                inputCoder,
                outputCoders,
                windowingStrategy,
                schemaInformation,
                sideInputMapping);
        runner.startBundle();
      } catch (RuntimeException | Error e) {
        tearDown();
        throw new StepFailure(stepName, e);
      }
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public <OutputT> void output(TupleTag<OutputT> tag, WindowedValue<OutputT> value) {
      if (tagged) {
        int index = outputTags.indexOf(tag);
        buffer.add((WindowedValue) value.withValue(new RawUnionValue(index, value.getValue())));
      } else {
        buffer.add((WindowedValue<Object>) value);
      }
    }

    @Override
    public boolean hasNext() {
      while (buffer.isEmpty() && !finished) {
        try {
          if (input.hasNext()) {
            runner.processElement(input.next());
          } else {
            finished = true;
            runner.finishBundle();
            tearDown();
            for (DoFn.BundleFinalizer.Callback callback : finalizers) {
              callback.onBundleSuccess();
            }
          }
        } catch (StepFailure e) {
          throw e;
        } catch (Exception | Error e) {
          finished = true;
          tearDown();
          throw new StepFailure(stepName, e);
        }
      }
      return !buffer.isEmpty();
    }

    @Override
    public WindowedValue<Object> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return buffer.poll();
    }

    private void tearDown() {
      if (tornDown || invoker == null) {
        return;
      }
      tornDown = true;
      try {
        invoker.invokeTeardown();
      } catch (RuntimeException e) {
        LOG.warn("Teardown of a DoFn of step '{}' failed", stepName, e);
      }
    }

    /** State and timers belong to stateful steps, which this function is never used for. */
    private final class StatelessStepContext implements StepContext {
      @Override
      public StateInternals stateInternals() {
        throw new UnsupportedOperationException("Step '" + stepName + "' is not stateful");
      }

      @Override
      public TimerInternals timerInternals() {
        throw new UnsupportedOperationException("Step '" + stepName + "' has no timers");
      }

      @Override
      public DoFn.BundleFinalizer bundleFinalizer() {
        return (Instant expiry, DoFn.BundleFinalizer.Callback callback) -> finalizers.add(callback);
      }
    }
  }
}
