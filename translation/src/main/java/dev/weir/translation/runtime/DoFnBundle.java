package dev.weir.translation.runtime;

import dev.weir.translation.BroadcastSideInputReader;
import dev.weir.translation.StepFailure;
import dev.weir.translation.metrics.BundleMetrics;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.runners.core.DoFnRunner;
import org.apache.beam.runners.core.DoFnRunners;
import org.apache.beam.runners.core.StepContext;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.util.WindowedValueMultiReceiver;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.TaskContext;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Spark partition as one Beam bundle of a ParDo: a DoFn instance set up for it, or in
 * streaming one kept from an earlier bundle of the step ({@link DoFnInstances}); given back when
 * the bundle succeeds, torn down when the task fails or ends early; outputs buffered until pulled, as
 * {@link RawUnionValue}s tagged by output position when there are several outputs; bundle
 * finalizers run after the bundle succeeded.
 */
public abstract class DoFnBundle implements WindowedValueMultiReceiver, Iterator<WindowedValue<Object>> {
  private static final Logger LOG = LoggerFactory.getLogger(DoFnBundle.class);

  protected final DoFnSpec spec;
  protected final DoFn<Object, Object> fn;
  protected final ArrayDeque<WindowedValue<Object>> buffer = new ArrayDeque<>();
  /** Outputs so far, of every tag. */
  private long emitted;
  private final List<DoFn.BundleFinalizer.Callback> finalizers = new ArrayList<>();
  private final boolean tagged;
  private final BroadcastSideInputReader sideInputReader;
  private final BundleMetrics metrics;
  private DoFnInstances.Instance instance;
  private boolean released;
  private boolean finished;

  protected DoFnBundle(DoFnSpec spec) {
    this.spec = spec;
    this.tagged = spec.outputTags.size() > 1;
    this.sideInputReader = new BroadcastSideInputReader(spec.sideInputs);
    // Registered before the teardown listener, so that it runs after it (Spark runs completion
    // listeners in reverse) and metrics from @Teardown are reported too.
    this.metrics = BundleMetrics.start(spec.metrics, spec.stepName);
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener((TaskContext ctx) -> tearDown());
      // A task Spark killed (its job failed) sets up no more user code.
      task.killTaskIfInterrupted();
    }
    try (Closeable scope = metrics.enter()) {
      this.instance = DoFnInstances.acquire(spec);
      this.fn = instance.fn;
    } catch (RuntimeException | IOException | Error e) {
      throw new StepFailure(spec.stepName, e);
    }
  }

  /**
   * Feeds the next input element (or key) to the DoFn, whose outputs land in {@link #buffer};
   * false when the input is exhausted.
   */
  protected abstract boolean processNext() throws Exception;

  /** Ends the input: fires what is left and calls {@code finishBundle}. */
  protected abstract void finishInput() throws Exception;

  @Override
  public final boolean hasNext() {
    if (buffer.isEmpty() && !finished) {
      // Several elements per metrics scope (ELEMENTS_PER_SCOPE says why).
      try (Closeable scope = metrics.enter()) {
        while (buffer.size() < BundleMetrics.ELEMENTS_PER_SCOPE && !finished) {
          if (!processNext()) {
            finished = true;
            finishInput();
            succeed();
          }
        }
      } catch (Exception | Error e) {
        finished = true;
        throw fail(e);
      }
    }
    return !buffer.isEmpty();
  }

  /** Work on the DoFn, which may throw anything. */
  @FunctionalInterface
  interface Work {
    void run() throws Exception;
  }

  /**
   * Push-driven use, for a bundle its caller feeds instead of one pulling its input (several
   * DoFns over one pass of their shared input, {@link SharedPassDoFnFunction}): runs {@code work}
   * with the step's metrics current; a failure tears the bundle down and is thrown naming the
   * step. The outputs land in {@link #buffer}.
   */
  final void push(Work work) {
    if (finished) {
      throw new IllegalStateException("Step '" + spec.stepName + "': its bundle has ended");
    }
    try (Closeable scope = metrics.enter()) {
      work.run();
    } catch (Exception | Error e) {
      finished = true;
      throw fail(e);
    }
  }

  /** Push-driven: ends the input and the bundle, as a pulled bundle does when its input is exhausted. */
  final void end() {
    push(() -> {
      finishInput();
      succeed();
    });
    finished = true;
  }

  @Override
  public final WindowedValue<Object> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return buffer.poll();
  }

  /** A runner for this bundle's DoFn whose state and timers come from {@code context}. */
  @SuppressWarnings("unchecked")
  protected DoFnRunner<Object, Object> simpleRunner(StepContext context) {
    return DoFnRunners.simpleRunner(
        spec.options.get(),
        fn,
        sideInputReader,
        this,
        (TupleTag<Object>) spec.outputTags.get(0),
        spec.outputTags.subList(1, spec.outputTags.size()),
        context,
        spec.inputCoder,
        spec.outputCoders,
        spec.windowingStrategy,
        spec.schemaInformation,
        spec.sideInputMapping);
  }

  /** Runs the DoFn's {@code @StartBundle} with this step's metrics container current. */
  protected void startBundle(DoFnRunner<Object, Object> runner) {
    try (Closeable scope = metrics.enter()) {
      runner.startBundle();
    } catch (RuntimeException | IOException | Error e) {
      throw fail(e);
    }
  }

  protected BroadcastSideInputReader sideInputReader() {
    return sideInputReader;
  }

  protected DoFn.BundleFinalizer bundleFinalizer() {
    return (Instant expiry, DoFn.BundleFinalizer.Callback callback) -> finalizers.add(callback);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <OutputT> void output(TupleTag<OutputT> tag, WindowedValue<OutputT> value) {
    emitted++;
    if (tagged) {
      int index = spec.outputTags.indexOf(tag);
      buffer.add((WindowedValue) value.withValue(new RawUnionValue(index, value.getValue())));
    } else {
      buffer.add((WindowedValue<Object>) value);
    }
  }

  /** How many outputs the DoFn gave so far, of every tag. */
  protected long emitted() {
    return emitted;
  }

  /** Ends a bundle that succeeded: the instance given back, then the bundle finalizers. */
  private void succeed() throws Exception {
    if (!released && instance != null) {
      released = true;
      DoFnInstances.release(spec, instance);
    }
    runFinalizers();
  }

  /**
   * Runs and forgets the bundle finalizers registered so far. Besides the end of a bundle, a
   * splittable DoFn's checkpoint (resume) ends a bundle in Beam's model: the work before it is
   * committed, so its finalizers run there.
   */
  protected void runFinalizers() throws Exception {
    List<DoFn.BundleFinalizer.Callback> due = new ArrayList<>(finalizers);
    finalizers.clear();
    for (DoFn.BundleFinalizer.Callback callback : due) {
      callback.onBundleSuccess();
    }
  }

  /** Ends a bundle that failed; the returned exception names the step. */
  protected StepFailure fail(Throwable t) {
    tearDown();
    return t instanceof StepFailure ? (StepFailure) t : new StepFailure(spec.stepName, t);
  }

  /** A bundle that failed or ended early: its instance may be in any state, so it goes. */
  protected void tearDown() {
    if (released || instance == null) {
      return;
    }
    released = true;
    try (Closeable scope = metrics.enter()) {
      DoFnInstances.tearDown(instance, spec.stepName);
    } catch (IOException e) {
      LOG.warn("Teardown of a DoFn of step '{}' failed", spec.stepName, e);
    }
  }
}
