package dev.weir.translation.runtime;

import java.util.Iterator;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.runners.core.TimerInternals;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/**
 * Runs a stateless DoFn over one Spark partition, one Beam bundle, producing outputs lazily as
 * the partition is consumed: of a Dataset (batch) or of an RDD (streaming).
 */
public final class DoFnFunction
    implements MapPartitionsFunction<WindowedValue<Object>, WindowedValue<Object>>,
        FlatMapFunction<Iterator<WindowedValue<Object>>, WindowedValue<Object>> {
  private final DoFnSpec spec;

  public DoFnFunction(DoFnSpec spec) {
    this.spec = spec;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<WindowedValue<Object>> input) {
    return new Bundle(spec, input);
  }

  /**
   * The bundle of one partition: pulling its input as its outputs are read, or, without input,
   * fed by its caller ({@link #processAll}, {@link #end}).
   */
  static final class Bundle extends DoFnBundle {
    private final Iterator<WindowedValue<Object>> input;
    private final DoFnRunner<Object, Object> runner;

    Bundle(DoFnSpec spec, Iterator<WindowedValue<Object>> input) {
      super(spec);
      this.input = input;
      runner = simpleRunner(new StatelessStepContext());
      startBundle(runner);
    }

    @Override
    protected boolean processNext() {
      if (!input.hasNext()) {
        return false;
      }
      runner.processElement(input.next());
      return true;
    }

    /** Push-driven: processes {@code elements}, in order; the outputs are in {@link #buffer}. */
    void processAll(java.util.List<WindowedValue<Object>> elements) {
      push(() -> {
        for (WindowedValue<Object> element : elements) {
          runner.processElement(element);
        }
      });
    }

    @Override
    protected void finishInput() {
      runner.finishBundle();
    }

    /** State and timers belong to stateful steps, which run in {@link StatefulDoFnFunction}. */
    private final class StatelessStepContext implements StepContext {
      @Override
      public StateInternals stateInternals() {
        throw new UnsupportedOperationException("Step '" + spec.stepName + "' is not stateful");
      }

      @Override
      public TimerInternals timerInternals() {
        throw new UnsupportedOperationException("Step '" + spec.stepName + "' has no timers");
      }

      @Override
      public DoFn.BundleFinalizer bundleFinalizer() {
        return Bundle.this.bundleFinalizer();
      }
    }
  }
}
