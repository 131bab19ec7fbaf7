package dev.weir.nexmark;

import java.util.List;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/** Options of the Nexmark launcher; every other option goes to the runner. */
public interface NexmarkOptions extends PipelineOptions {
  /** Which queries at which sizes. */
  enum Suite {
    /** Every query at 100,000 events (the windowed-join queries 4, 6 and 9 at 10,000). */
    SMOKE,
    /** Every query at 100 times the SMOKE sizes. */
    STRESS
  }

  /** Bounded input (batch) or unbounded input (streaming). */
  enum Mode {
    BATCH,
    STREAMING
  }

  @Description("Queries to run, e.g. --query=0,1,2 (default: all)")
  List<Integer> getQuery();

  void setQuery(List<Integer> value);

  @Description("SMOKE or STRESS")
  @Default.Enum("SMOKE")
  Suite getSuite();

  void setSuite(Suite value);

  @Description("BATCH or STREAMING")
  @Default.Enum("BATCH")
  Mode getMode();

  void setMode(Mode value);

  @Description("Events per query, instead of the suite's")
  Long getNumEvents();

  void setNumEvents(Long value);

  @Description("Where query 10 writes its log files (none when unset)")
  String getOutputPath();

  void setOutputPath(String value);

  @Description("JDBC URL of the results history (any JDBC database; default: an embedded H2 file)")
  @Default.String("jdbc:h2:./nexmark-results/history")
  String getHistoryUrl();

  void setHistoryUrl(String value);

  @Description("Id recorded with every run of this launch, so that a check can tell its runs from"
      + " earlier ones in the history (default: a random UUID)")
  String getRunId();

  void setRunId(String value);

  @Description("Where the HTML dashboard is written")
  @Default.String("nexmark-results/dashboard.html")
  String getDashboard();

  void setDashboard(String value);

  @Description("A run is a regression when its events/s fall this many percent below the baseline")
  @Default.Double(20.0)
  double getRegressionThresholdPercent();

  void setRegressionThresholdPercent(double value);

  @Description("A query the runner refuses, or whose run throws, is reported as REFUSED or FAILED and"
      + " does not fail the launch (wrong results still do): for runners compared with Weir that lack a"
      + " feature (default: false, such a query fails the launch)")
  @Default.Boolean(false)
  boolean isAllowRefused();

  void setAllowRefused(boolean value);

  @Description("Run the queries written with plain Spark (0, 1, 2, 5) on this Spark master, e.g. local[2],"
      + " instead of a Beam pipeline: recorded as the runner SparkNative, the reference for what Spark itself"
      + " does with the same events (batch only; other queries are refused)")
  String getNativeSparkMaster();

  void setNativeSparkMaster(String value);

  @Description("Streaming: hand out events at their rate in wall-clock time (default: as fast as read)")
  @Default.Boolean(false)
  boolean isRateLimited();

  void setRateLimited(boolean value);

  @Description("Streaming, rate-limited: latency is counted for outputs of events after this many seconds of"
      + " the stream, so that starting the pipeline is not counted (default 2)")
  @Default.Integer(2)
  int getLatencyWarmUpSec();

  void setLatencyWarmUpSec(int value);

  @Description("Streaming: the probability that an event arrives after later ones (default 0)")
  @Default.Double(0.0)
  double getProbDelayedEvent();

  void setProbDelayedEvent(double value);

  @Description("Streaming: the most a delayed event arrives after its event time, in seconds")
  @Default.Integer(3)
  int getOccasionalDelaySec();

  void setOccasionalDelaySec(int value);
}
