package dev.weir.runner;

import dev.weir.metrics.MetricsPusher;
import dev.weir.translation.ModeDetector;
import dev.weir.translation.Overrides;
import dev.weir.translation.PipelineTranslator;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.batch.BatchTranslators;
import dev.weir.translation.metrics.PipelineMetrics;
import dev.weir.translation.streaming.EpochLoop;
import dev.weir.translation.streaming.StreamingSettings;
import dev.weir.translation.streaming.StreamingTranslators;
import dev.weir.translation.streaming.state.MemoryStateBackend;
import dev.weir.translation.streaming.state.RocksDbStateBackend;
import dev.weir.translation.streaming.state.StateBackend;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.metrics.MetricsEnvironment;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsValidator;
import org.apache.beam.sdk.values.PCollection;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Beam runner that executes pipelines on Apache Spark 4: {@code --runner=WeirRunner}.
 *
 * <p>{@link #run} validates the options, detects the mode, rewrites the pipeline into what Weir
 * translates, checks that every step can be translated (so an unsupported transform fails
 * before any Spark job runs), and then runs the Spark jobs on a driver thread owned by the
 * returned {@link PipelineResult}: once in batch, epoch after epoch in streaming.
 */
public final class WeirRunner extends PipelineRunner<PipelineResult> {
  private static final Logger LOG = LoggerFactory.getLogger(WeirRunner.class);

  private final WeirPipelineOptions options;

  private WeirRunner(WeirPipelineOptions options) {
    this.options = options;
  }

  /** Called by Beam for {@code --runner=WeirRunner}. */
  public static WeirRunner fromOptions(PipelineOptions options) {
    // Beam metrics in user code are collected: tell the SDK so (TestPipeline also then checks
    // that every PAssert succeeded through its counters).
    MetricsEnvironment.setMetricsSupported(true);
    WeirPipelineOptions weir = PipelineOptionsValidator.validate(WeirPipelineOptions.class, options);
    SparkSessions.validate(weir);
    if (weir.getRuntimeMode() == null) {
      throw new IllegalArgumentException(
          "Invalid --runtimeMode: accepted values are AUTOMATIC, BATCH, STREAMING");
    }
    return new WeirRunner(weir);
  }

  @Override
  public PipelineResult run(Pipeline pipeline) {
    PCollection<?> unbounded = ModeDetector.firstUnbounded(pipeline);
    boolean streaming;
    switch (options.getRuntimeMode()) {
      case BATCH:
        if (unbounded != null) {
          throw new IllegalArgumentException(
              "--runtimeMode=BATCH, but PCollection '" + unbounded.getName()
                  + "' is unbounded: use --runtimeMode=AUTOMATIC or STREAMING for unbounded input");
        }
        streaming = false;
        break;
      case STREAMING:
        streaming = true;
        break;
      default:
        // AUTOMATIC decides by boundedness alone; Beam's --streaming flag does not force it.
        streaming = unbounded != null;
        if (options.isStreaming() && !streaming) {
          LOG.info("--streaming is set but every PCollection is bounded: running in batch "
              + "(--runtimeMode=STREAMING forces streaming)");
        }
    }

    // Checked in batch too: a wrong value is an error wherever it is given.
    StateBackend stateBackend = stateBackend(options);
    Overrides.apply(pipeline);
    TimePolicies policies = policies(options, streaming);
    PipelineTranslator plan = PipelineTranslator.check(pipeline, policies, streaming ? StreamingTranslators.INSTANCE : BatchTranslators.INSTANCE);
    LOG.info(
        "{} plan of {} ({}):\n{}", streaming ? "Streaming" : "Batch", options.getJobName(), policies, plan.explain());
    StreamingSettings settings =
        streaming
            ? new StreamingSettings(
                options.getEpochMaxRecords(),
                options.getEpochMaxReadTimeMillis(),
                options.getEpochQuietMillis(),
                options.getSourceSplits(),
                options.getEpochIdleWaitMillis(),
                options.getIdleTimeoutMillis(),
                options.getCheckpointDir(),
                stateBackend)
            : null;
    if (!streaming && options.getCheckpointDir() != null) {
      // A batch pipeline is run again whole; there is nothing to resume.
      LOG.warn("--checkpointDir={} is ignored: it is for streaming, and this pipeline runs in batch", options.getCheckpointDir());
    }

    if (streaming && !SparkSessions.isLocal(options.getSparkMaster()) && options.getCheckpointDir() == null) {
      // Keyed state and source positions must survive a task that runs on another executor.
      throw new IllegalArgumentException(
          "Streaming on --sparkMaster=" + options.getSparkMaster() + " needs --checkpointDir: on a cluster a "
              + "keyed partition or source split may run on another executor than the epoch before, which "
              + "reads its state back from the checkpoint dir (a path or URI every executor can reach)");
    }
    SparkSession session = SparkSessions.getOrCreate(options);
    SparkSessions.fitShufflePartitions(session, options);
    PipelineMetrics metrics = PipelineMetrics.register(session.sparkContext(), options.getJobName());
    MetricsPusher pusher = MetricsPusher.start(options, metrics::results, options.getJobName());
    WeirPipelineResult result =
        streaming
            ? WeirPipelineResult.streaming(
                options.getJobName(),
                session.sparkContext(),
                metrics,
                pusher,
                (jobGroup, control) -> EpochLoop.run(plan, session, options, metrics, settings, jobGroup, control))
            : WeirPipelineResult.batch(
                options.getJobName(),
                session.sparkContext(),
                metrics,
                pusher,
                () -> plan.execute(session, options, metrics));
    result.start();
    if (options.isBlockOnRun()) {
      result.waitUntilFinish();
    }
    return result;
  }

  /** The time policies of a run: the user's choices, else the defaults of its mode. */
  static TimePolicies policies(WeirPipelineOptions options, boolean streaming) {
    TimePolicies defaults = streaming ? TimePolicies.streamingDefaults() : TimePolicies.batchDefaults();
    return new TimePolicies(
        options.getProcessingTimeTimers() == null
            ? defaults.processingTimeTimers()
            : TimePolicies.ProcessingTimeTimers.valueOf(options.getProcessingTimeTimers().name()),
        options.getProcessingTimeEndOfInput() == null
            ? defaults.processingTimeEndOfInput()
            : TimePolicies.ProcessingTimeEndOfInput.valueOf(options.getProcessingTimeEndOfInput().name()),
        options.getWindowTriggers() == null
            ? defaults.windowTriggers()
            : TimePolicies.WindowTriggers.valueOf(options.getWindowTriggers().name()));
  }

  @Override
  public String toString() {
    return "WeirRunner";
  }

  /** {@code --stateBackend}: memory or rocksdb (any case). */
  static StateBackend stateBackend(WeirPipelineOptions options) {
    String name = options.getStateBackend() == null ? "" : options.getStateBackend().trim().toLowerCase(java.util.Locale.ROOT);
    switch (name) {
      case "memory":
        return MemoryStateBackend.INSTANCE;
      case "rocksdb":
        return new RocksDbStateBackend(options.getStateBackendMemoryMb());
      default:
        throw new IllegalArgumentException(
            "Invalid --stateBackend=" + options.getStateBackend() + ": must be memory or rocksdb");
    }
  }
}
