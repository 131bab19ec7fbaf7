package dev.weir.runner;

import java.util.List;
import dev.weir.translation.streaming.StreamingSettings;
import org.apache.beam.sdk.options.ApplicationNameOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.DefaultValueFactory;
import org.apache.beam.sdk.options.FileStagingOptions;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;

/** Options of {@link WeirRunner}. */
public interface WeirPipelineOptions
    extends PipelineOptions, StreamingOptions, ApplicationNameOptions, FileStagingOptions {

  /** How {@link WeirRunner} chooses between batch and streaming execution. */
  enum RuntimeMode {
    /** Streaming if some PCollection is unbounded, batch otherwise ({@code --streaming} aside). */
    AUTOMATIC,
    /** Batch; an unbounded PCollection is an error. */
    BATCH,
    /** Streaming, also over bounded sources. */
    STREAMING
  }

  @Description(
      "The Spark master: local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn or "
          + "k8s://URL. Defaults to the master spark-submit set, else embedded Spark on every core.")
  @Default.InstanceFactory(SparkMasterFactory.class)
  String getSparkMaster();

  void setSparkMaster(String value);

  /** spark-submit's master ({@code spark.master}) if there is one, else {@code local[*]}. */
  class SparkMasterFactory implements DefaultValueFactory<String> {
    @Override
    public String create(PipelineOptions options) {
      return System.getProperty("spark.master", "local[*]");
    }
  }

  @Description(
      "Seconds a cluster master (--sparkMaster=spark://..., yarn, k8s://...) has to answer and to "
          + "start a first executor, before the pipeline fails naming the master.")
  @Default.Long(120)
  long getSparkStartTimeoutSeconds();

  void setSparkStartTimeoutSeconds(long value);

  @Description("AUTOMATIC (default: streaming iff some PCollection is unbounded), BATCH or STREAMING.")
  @Default.Enum("AUTOMATIC")
  RuntimeMode getRuntimeMode();

  void setRuntimeMode(RuntimeMode value);

  @Description(
      "Spark settings passed through to the Spark session, each as key=value, e.g. "
          + "--sparkConf=spark.sql.shuffle.partitions=8 (repeat the option or separate with commas), or "
          + "as a JSON map, --sparkConf={\"spark.jars\":\"a.jar,b.jar\"}. Values may hold commas.")
  List<String> getSparkConf();

  void setSparkConf(List<String> value);

  /** What to do with processing-time timers and processing-time triggers. */
  enum ProcessingTimeTimers {
    /** Run them against a processing clock (the streaming default). */
    ALLOW,
    /** Drop them. */
    IGNORE,
    /** Reject the pipeline before it runs, naming the step (the batch default). */
    FAIL
  }

  /** What to do with pending processing-time timers when the input ends. */
  enum ProcessingTimeEndOfInput {
    /** Fire them once and ignore new ones (the streaming default). */
    FIRE_AND_QUIESCE,
    /** Drop them (the batch default). */
    IGNORE
  }

  /** Whether triggers are honoured. */
  enum WindowTriggers {
    /** Early and late panes as the user's trigger says (the streaming default). */
    ALLOW,
    /** Each window fires once, when complete (the batch default). */
    IGNORE
  }

  @Description(
      "ALLOW, IGNORE or FAIL: what to do with processing-time timers and triggers. Default: FAIL "
          + "in batch (processing time has no meaning there), ALLOW in streaming.")
  ProcessingTimeTimers getProcessingTimeTimers();

  void setProcessingTimeTimers(ProcessingTimeTimers value);

  @Description(
      "FIRE_AND_QUIESCE or IGNORE: at the end of input, fire pending processing-time timers once "
          + "and ignore new ones, or drop them. Default: IGNORE in batch, FIRE_AND_QUIESCE in streaming.")
  ProcessingTimeEndOfInput getProcessingTimeEndOfInput();

  void setProcessingTimeEndOfInput(ProcessingTimeEndOfInput value);

  @Description(
      "ALLOW or IGNORE: honour triggers (early and late panes), or fire each window once when "
          + "complete. Default: IGNORE in batch, ALLOW in streaming.")
  WindowTriggers getWindowTriggers();

  void setWindowTriggers(WindowTriggers value);

  @Description(
      "Whether run() waits for the pipeline to finish (and throws its failure), as Beam's "
          + "DirectRunner does. With false, run() returns at once and waitUntilFinish() waits.")
  @Default.Boolean(true)
  boolean isBlockOnRun();

  void setBlockOnRun(boolean value);

  @Description("Streaming: records each unbounded source split reads at most per epoch.")
  @Default.Long(StreamingSettings.DEFAULT_MAX_RECORDS)
  long getEpochMaxRecords();

  void setEpochMaxRecords(long value);

  @Description(
      "Streaming: milliseconds each unbounded source split reads at most per epoch; also the epoch's "
          + "read deadline: a split whose task starts after it (more splits than cores) stops at its "
          + "first empty poll. Short by default so that an epoch's output follows its input within "
          + "a fraction of a second; a longer read amortizes each epoch's fixed cost over more records.")
  @Default.Long(StreamingSettings.DEFAULT_MAX_READ_TIME_MILLIS)
  long getEpochMaxReadTimeMillis();

  void setEpochMaxReadTimeMillis(long value);

  @Description(
      "Streaming: milliseconds an unbounded source split waits for a record to be ready before it "
          + "ends its read for the epoch (a reader with nothing ready is polled again until then).")
  @Default.Long(StreamingSettings.DEFAULT_QUIET_MILLIS)
  long getEpochQuietMillis();

  void setEpochQuietMillis(long value);

  @Description(
      "Streaming: how many splits each unbounded source is asked to split into; 0 (the default): "
          + "one per core (Spark's default parallelism). A source may give fewer (KafkaIO: at most one "
          + "per topic partition); each split is one Spark task per epoch, and idleness "
          + "(--idleTimeoutMillis) is judged per split.")
  @Default.Integer(0)
  int getSourceSplits();

  void setSourceSplits(int value);

  @Description(
      "Streaming: milliseconds the driver waits before the next epoch when one read nothing and "
          + "moved no watermark.")
  @Default.Long(100)
  long getEpochIdleWaitMillis();

  void setEpochIdleWaitMillis(long value);

  @Description(
      "Streaming: milliseconds of processing time after which an unbounded source split that read "
          + "nothing counts as idle and stops holding its source's watermark back, until it reads "
          + "again; 0 (the default) never.")
  @Default.Long(0)
  long getIdleTimeoutMillis();

  void setIdleTimeoutMillis(long value);

  @Description(
      "Streaming: where each epoch is committed (sources' checkpoint marks, every step's watermarks, "
          + "keyed state), a local path or any Hadoop file system URI (hdfs://, file://, ...). A "
          + "pipeline started again with the same directory resumes after its last committed epoch. "
          + "Unset (the default): no checkpoints; state lives in executor memory only.")
  String getCheckpointDir();

  void setCheckpointDir(String value);

  @Description(
      "Streaming: where keyed state (groupings' windows, stateful DoFns' cells and timers) lives between "
          + "epochs: memory (the default: the executor's heap) or rocksdb (an embedded RocksDB per keyed "
          + "partition on the executor's local disk, its native memory bounded by --stateBackendMemoryMb; "
          + "with --checkpointDir each epoch uploads only the files the previous commit lacked).")
  @Default.String("memory")
  String getStateBackend();

  void setStateBackend(String value);

  @Description(
      "Streaming with --stateBackend=rocksdb: megabytes of native memory that all RocksDB partitions of "
          + "one executor JVM share for their block cache and write buffers.")
  @Default.Long(256)
  long getStateBackendMemoryMb();

  void setStateBackendMemoryMb(long value);
}
