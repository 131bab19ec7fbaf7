package dev.weir.runner;

import dev.weir.metrics.MetricsPusher;
import dev.weir.translation.StepFailure;
import dev.weir.translation.metrics.PipelineMetrics;
import dev.weir.translation.streaming.StreamingControl;
import dev.weir.translation.streaming.OperatorWatermarks;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.util.UserCodeException;
import org.apache.spark.SparkContext;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running or finished Weir pipeline. It owns the driver thread that runs the pipeline's Spark
 * jobs and the metrics pusher, which it closes (one last push) before the pipeline counts as
 * finished. A batch pipeline's jobs form one Spark job group, which {@link #cancel} cancels; a
 * streaming pipeline's form one group per epoch, and {@link #cancel} stops it after the current
 * epoch. {@link #waitUntilFinish(Duration)} returns the state at the deadline, as Beam's
 * DirectRunner does.
 */
public final class WeirPipelineResult implements PipelineResult {
  private static final Logger LOG = LoggerFactory.getLogger(WeirPipelineResult.class);
  private static final AtomicInteger IDS = new AtomicInteger();

  private final String jobGroup;
  private final SparkContext sparkContext;
  private final PipelineMetrics metrics;
  private final boolean streaming;
  private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private final AtomicBoolean drainRequested = new AtomicBoolean();
  private final AtomicReference<Map<String, OperatorWatermarks>> watermarks = new AtomicReference<>(Map.of());
  private final AtomicLong epochs = new AtomicLong();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final Thread driver;

  /** A streaming pipeline's body: runs epochs until it finishes (true) or is stopped (false). */
  interface StreamingBody {
    boolean run(String jobGroup, StreamingControl control) throws Exception;
  }

  static WeirPipelineResult batch(
      String name, SparkContext sparkContext, PipelineMetrics metrics, MetricsPusher pusher, Runnable pipeline) {
    return new WeirPipelineResult(name, sparkContext, metrics, pusher, false, (group, control) -> {
      sparkContext.setJobGroup(group, name, true);
      pipeline.run();
      return true;
    });
  }

  static WeirPipelineResult streaming(
      String name, SparkContext sparkContext, PipelineMetrics metrics, MetricsPusher pusher, StreamingBody pipeline) {
    return new WeirPipelineResult(name, sparkContext, metrics, pusher, true, pipeline);
  }

  private WeirPipelineResult(
      String name,
      SparkContext sparkContext,
      PipelineMetrics metrics,
      MetricsPusher pusher,
      boolean streaming,
      StreamingBody pipeline) {
    this.jobGroup = "weir-" + IDS.incrementAndGet() + "-" + name;
    this.sparkContext = sparkContext;
    this.metrics = metrics;
    this.streaming = streaming;
    RunningTasks runningTasks = RunningTasks.of(sparkContext);
    this.driver =
        new Thread(
            () -> {
              Throwable failure = null;
              try {
                pipeline.run(
                    jobGroup,
                    new StreamingControl() {
                      @Override
                      public boolean stopRequested() {
                        return stopRequested.get();
                      }

                      @Override
                      public boolean drainRequested() {
                        return drainRequested.get();
                      }

                      @Override
                      public void afterEpoch(long epoch, Map<String, OperatorWatermarks> wm) {
                        watermarks.set(wm);
                        epochs.set(epoch);
                      }
                    });
              } catch (Throwable t) {
                failure = t;
                // Spark kills the failed job's other tasks, which stop on their own threads a
                // little later: the failure is reported once they are gone (or after 30 s), so
                // that no user code of the pipeline runs after it.
                runningTasks.awaitNone(sparkContext, jobGroup, 30_000);
              } finally {
                sparkContext.clearJobGroup();
                // The last push happens before waitUntilFinish can return, and stops the pusher.
                pusher.close();
              }
              if (failure == null) {
                state.compareAndSet(State.RUNNING, State.DONE);
                done.complete(null);
              } else {
                if (!state.compareAndSet(State.RUNNING, State.FAILED)) {
                  LOG.debug("Pipeline {} ended after cancel", jobGroup, failure);
                }
                done.completeExceptionally(failure);
              }
            },
            jobGroup);
  }

  void start() {
    driver.start();
  }

  @Override
  public State getState() {
    return state.get();
  }

  @Override
  public State cancel() {
    if (state.compareAndSet(State.RUNNING, State.CANCELLED)) {
      stopRequested.set(true);
      if (!streaming) {
        sparkContext.cancelJobGroup(jobGroup);
        driver.interrupt();
      }
    }
    return state.get();
  }

  /**
   * Drains a streaming pipeline: its sources read nothing more and move their watermarks to the
   * end of time, so every open window fires and the pipeline finishes ({@code DONE}) once the
   * watermarks get there. Use {@link #waitUntilFinish} to wait for that. Batch pipelines have
   * nothing to drain: this is an {@link UnsupportedOperationException} there.
   */
  public State drain() {
    if (!streaming) {
      throw new UnsupportedOperationException("drain() applies to streaming pipelines; this one runs in batch");
    }
    drainRequested.set(true);
    return state.get();
  }

  /**
   * Each step's input and output watermark after the last epoch of a streaming pipeline, in
   * topological order; empty in batch.
   */
  public Map<String, OperatorWatermarks> watermarks() {
    return watermarks.get();
  }

  /** The epochs a streaming pipeline has completed; 0 in batch. */
  public long epochs() {
    return epochs.get();
  }

  @Override
  public @Nullable State waitUntilFinish(Duration duration) {
    try {
      if (duration == null || duration.getMillis() < 1) {
        done.get();
      } else {
        done.get(duration.getMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (TimeoutException e) {
      return state.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (CancellationException e) {
      return state.get();
    } catch (ExecutionException e) {
      if (state.get() == State.CANCELLED) {
        return State.CANCELLED;
      }
      throw asPipelineFailure(e.getCause());
    }
    return state.get();
  }

  @Override
  public State waitUntilFinish() {
    return waitUntilFinish(Duration.ZERO);
  }

  /** Attempted and committed Beam metrics, while the pipeline runs and after it. */
  @Override
  public MetricResults metrics() {
    return metrics.results();
  }

  /**
   * The exception a Beam user expects for a failed pipeline: user code failures become a
   * {@link Pipeline.PipelineExecutionException} whose cause is the user's exception and whose
   * message names the step; the rest stay as they are or are wrapped the same way.
   */
  static RuntimeException asPipelineFailure(Throwable t) {
    StepFailure failure = StepFailure.find(t);
    if (failure != null) {
      Throwable cause = failure.getCause();
      while (cause instanceof UserCodeException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      return new StepExecutionException(failure.stepName(), cause);
    }
    if (t instanceof Pipeline.PipelineExecutionException) {
      return (RuntimeException) t;
    }
    return new Pipeline.PipelineExecutionException(t);
  }
}
