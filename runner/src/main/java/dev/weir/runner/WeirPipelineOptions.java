package dev.weir.runner;

import java.util.List;
import org.apache.beam.sdk.options.ApplicationNameOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;

/** Options of {@link WeirRunner}. */
public interface WeirPipelineOptions extends PipelineOptions, StreamingOptions, ApplicationNameOptions {

  /** How {@link WeirRunner} chooses between batch and streaming execution. */
  enum RuntimeMode {
    /** Streaming if some PCollection is unbounded (or {@code --streaming}), batch otherwise. */
    AUTOMATIC,
    /** Batch; an unbounded PCollection is an error. */
    BATCH,
    /** Streaming, also over bounded sources. */
    STREAMING
  }

  @Description(
      "The Spark master: local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn or "
          + "k8s://URL. Defaults to embedded Spark on every core.")
  @Default.String("local[*]")
  String getSparkMaster();

  void setSparkMaster(String value);

  @Description("AUTOMATIC (default: streaming iff some PCollection is unbounded), BATCH or STREAMING.")
  @Default.Enum("AUTOMATIC")
  RuntimeMode getRuntimeMode();

  void setRuntimeMode(RuntimeMode value);

  @Description(
      "Spark settings passed through to the Spark session, each as key=value, e.g. "
          + "--sparkConf=spark.sql.shuffle.partitions=8 (repeat the option or separate with commas).")
  List<String> getSparkConf();

  void setSparkConf(List<String> value);

  @Description(
      "Whether run() waits for the pipeline to finish (and throws its failure), as Beam's "
          + "DirectRunner does. With false, run() returns at once and waitUntilFinish() waits.")
  @Default.Boolean(true)
  boolean isBlockOnRun();

  void setBlockOnRun(boolean value);
}
