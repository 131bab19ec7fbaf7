package dev.weir.metrics;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.MetricsOptions;
import org.apache.beam.sdk.metrics.MetricsSink;
import org.apache.beam.sdk.options.PipelineOptions;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes a pipeline's Beam metrics to the sink named by Beam's standard {@link MetricsOptions}:
 * every {@code metricsPushPeriod} seconds while the pipeline runs, and once more, last, when
 * {@link #close} is called at its end. One thread, owned by whoever created the pusher and
 * stopped by {@link #close}. A sink that fails, is down or is slow is logged; it never fails
 * the pipeline, and {@link #close} waits for it at most {@link #CLOSE_TIMEOUT_SECONDS}.
 */
public final class MetricsPusher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsPusher.class);
  static final long CLOSE_TIMEOUT_SECONDS = 30;

  private final @Nullable MetricsSink sink;
  private final Supplier<MetricResults> metrics;
  private final @Nullable ScheduledExecutorService thread;
  // The executor's one worker: close() joins it, since an executor counts as terminated a
  // moment before its worker thread has ended.
  private final AtomicReference<Thread> worker = new AtomicReference<>();

  private MetricsPusher(@Nullable MetricsSink sink, Supplier<MetricResults> metrics, long periodSeconds, String name) {
    this.sink = sink;
    this.metrics = metrics;
    if (sink == null) {
      this.thread = null;
      return;
    }
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-metrics-pusher-" + name);
              t.setDaemon(true);
              worker.set(t);
              return t;
            });
    long period = Math.max(1, periodSeconds);
    thread.scheduleWithFixedDelay(this::push, period, period, TimeUnit.SECONDS);
  }

  /**
   * Starts pushing {@code metrics} as {@code options} say; without a sink (Beam's default, a
   * no-op sink) nothing is started.
   *
   * @throws IllegalArgumentException naming {@code --metricsSink} if the sink cannot be created
   */
  public static MetricsPusher start(PipelineOptions options, Supplier<MetricResults> metrics, String name) {
    MetricsOptions metricsOptions = options.as(MetricsOptions.class);
    Class<? extends MetricsSink> sinkClass;
    try {
      sinkClass = metricsOptions.getMetricsSink();
    } catch (IllegalArgumentException e) {
      // Beam's default is runners-core's NoOpMetricsSink, looked up by name: absent, no sink.
      sinkClass = null;
    }
    MetricsSink sink = null;
    if (sinkClass != null && !sinkClass.getName().equals("org.apache.beam.sdk.metrics.NoOpMetricsSink")
        && !sinkClass.getSimpleName().equals("NoOpMetricsSink")) {
      sink = newSink(sinkClass, options);
    }
    Long period = metricsOptions.getMetricsPushPeriod();
    return new MetricsPusher(sink, metrics, period == null ? 5 : period, name);
  }

  /** A sink through its constructor taking (a sub-interface of) PipelineOptions, or no argument. */
  @SuppressWarnings("unchecked")
  static MetricsSink newSink(Class<? extends MetricsSink> sinkClass, PipelineOptions options) {
    try {
      for (Constructor<?> c : sinkClass.getConstructors()) {
        Class<?>[] params = c.getParameterTypes();
        if (params.length == 1 && PipelineOptions.class.isAssignableFrom(params[0])) {
          return (MetricsSink) c.newInstance(options.as((Class<? extends PipelineOptions>) params[0]));
        }
      }
      return sinkClass.getConstructor().newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
      throw new IllegalArgumentException(
          "Invalid --metricsSink=" + sinkClass.getName() + ": a MetricsSink needs a public constructor "
              + "taking MetricsOptions (or PipelineOptions), or none; creating it failed: " + cause,
          cause);
    }
  }

  private void push() {
    try {
      sink.writeMetrics(MetricsSnapshot.of(metrics.get().queryMetrics(MetricsFilter.builder().build())));
    } catch (Exception | Error e) {
      LOG.warn("Pushing metrics to {} failed; the pipeline goes on", sink.getClass().getName(), e);
    }
  }

  /** Pushes one last time, on the pusher's thread, and stops it. */
  @Override
  public void close() {
    if (thread == null) {
      return;
    }
    thread.execute(this::push);
    thread.shutdown();
    try {
      if (!thread.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        LOG.warn("The last metrics push to {} did not end in {} s; abandoning it",
            sink.getClass().getName(), CLOSE_TIMEOUT_SECONDS);
        thread.shutdownNow();
      } else if (worker.get() != null) {
        worker.get().join(TimeUnit.SECONDS.toMillis(CLOSE_TIMEOUT_SECONDS));
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
