package dev.weir.runner;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import dev.weir.translation.RowCacheSerializer;
import java.util.regex.Pattern;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.sql.SparkSession;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark session lifecycle. One session per JVM is shared by every pipeline on the same
 * master: starting Spark takes seconds, and a test JVM runs hundreds of pipelines. A pipeline
 * on another master replaces it; a session that stopped (it could not reach its master, say) is
 * replaced too, so it never fails the pipelines after it. Spark stops the last one in its own
 * shutdown hook.
 *
 * <p>On a cluster master the driver's classpath is staged to the executors ({@link
 * FilesToStage}), unless the pipeline runs inside {@code spark-submit}, which ships the
 * application jar and whose master and settings win. A standalone master that does not answer,
 * or a cluster that starts no executor, fails within {@code --sparkStartTimeoutSeconds}, naming
 * the master, instead of waiting on Spark's own retries.
 */
final class SparkSessions {
  private static final Logger LOG = LoggerFactory.getLogger(SparkSessions.class);
  /** Spark's cache format, which Weir sets to {@link RowCacheSerializer} unless told otherwise. */
  static final String ROW_CACHE_CONF = "spark.sql.cache.serializer";
  private static final Pattern LOCAL = Pattern.compile("local(\\[(\\*|\\d+)(,\\d+)?])?");
  private static final Pattern MASTER = Pattern.compile("local(\\[(\\*|\\d+)(,\\d+)?])?|spark://.+|yarn|k8s://.+");
  private static final Pattern STANDALONE = Pattern.compile("spark://(.+)");
  private static final String CLUSTER_LOGS =
      ": check the master's and workers' logs (free cores and memory, the workers' Java, the staged jars)";
  /** How Spark's SparkContext says it was stopped (its assertNotStopped). */
  private static final String SPARK_STOPPED = "Cannot call methods on a stopped SparkContext";
  static final String ACCEPTED_MASTERS =
      "local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn, k8s://URL";

  private SparkSessions() {}

  /** Whether this JVM's main was started by {@code spark-submit} (it sets these properties). */
  static boolean underSparkSubmit() {
    return System.getProperty("spark.submit.deployMode") != null && System.getProperty("spark.master") != null;
  }

  static boolean isLocal(String master) {
    return LOCAL.matcher(master).matches();
  }

  /** Checks {@code --sparkMaster} and {@code --sparkConf} without starting anything. */
  static Map<String, String> validate(WeirPipelineOptions options) {
    String master = options.getSparkMaster();
    if (master == null || !MASTER.matcher(master).matches()) {
      throw new IllegalArgumentException(
          "Invalid --sparkMaster=" + master + ": accepted values are " + ACCEPTED_MASTERS);
    }
    String submitted = System.getProperty("spark.master");
    if (underSparkSubmit() && !master.equals(submitted)) {
      throw new IllegalArgumentException(
          "--sparkMaster=" + master + " disagrees with spark-submit's --master " + submitted
              + ": under spark-submit leave --sparkMaster out (its master is used) or give the same one");
    }
    if (options.getSparkStartTimeoutSeconds() < 1) {
      throw new IllegalArgumentException(
          "Invalid --sparkStartTimeoutSeconds=" + options.getSparkStartTimeoutSeconds() + ": must be at least 1");
    }
    List<String> entries = options.getSparkConf();
    return entries == null ? new java.util.TreeMap<>() : SparkConfEntries.parse(entries);
  }

  static synchronized SparkSession getOrCreate(WeirPipelineOptions options) {
    Map<String, String> conf = validate(options);
    JavaModules.checkOpens();
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    SparkClasspath.check(loader != null ? loader : SparkSessions.class.getClassLoader());
    String master = options.getSparkMaster();
    long timeoutSeconds = options.getSparkStartTimeoutSeconds();
    scala.Option<SparkSession> existing = SparkSession.getDefaultSession();
    if (existing.isDefined()) {
      SparkContext sc = existing.get().sparkContext();
      if (sc.isStopped()) {
        LOG.info("The Spark session on {} has stopped; starting a new one", sc.master());
        forget();
      } else if (sc.master().equals(master)) {
        return existing.get();
      } else {
        checkReachable(master, timeoutSeconds);
        // One SparkContext per JVM: a pipeline that asks for another master gets a new one.
        LOG.info("Stopping the Spark session on {} to start one on --sparkMaster={}", sc.master(), master);
        existing.get().stop();
        forget();
      }
    }
    checkReachable(master, timeoutSeconds);
    SparkSession.Builder builder = SparkSession.builder().master(master).appName(options.getAppName());
    int cores = localCores(master);
    if (cores > 0 && !conf.containsKey("spark.sql.shuffle.partitions")) {
      // Spark's default of 200 shuffle partitions is made for clusters; embedded Spark gets
      // one per core.
      builder.config("spark.sql.shuffle.partitions", String.valueOf(Math.max(2, cores)));
    }
    if (!conf.containsKey(ROW_CACHE_CONF) && !(underSparkSubmit() && System.getProperty(ROW_CACHE_CONF) != null)) {
      // Weir's Datasets are opaque Beam-encoded bytes: cached as rows, not Spark's columns.
      builder.config(ROW_CACHE_CONF, RowCacheSerializer.class.getName());
    }
    for (Map.Entry<String, String> e : conf.entrySet()) {
      String submitted = underSparkSubmit() ? System.getProperty(e.getKey()) : null;
      if (submitted != null && !submitted.equals(e.getValue())) {
        LOG.warn("--sparkConf={}={} is ignored: spark-submit set {}={}", e.getKey(), e.getValue(), e.getKey(), submitted);
      } else {
        builder.config(e.getKey(), e.getValue());
      }
    }
    FilesToStage staged = null;
    if (cores == 0 && !underSparkSubmit()) {
      staged = FilesToStage.of(options.getFilesToStage(), System.getenv("SPARK_HOME"));
      String jars = String.join(",", staged.files());
      String given = conf.get("spark.jars");
      builder.config("spark.jars", given == null || given.isEmpty() ? jars : given + "," + jars);
    }
    SparkSession session;
    try {
      session = builder.getOrCreate();
    } catch (RuntimeException e) {
      close(staged);
      forget();
      throw startFailure(master, e);
    }
    if (staged != null) {
      FilesToStage owned = staged;
      session.sparkContext().addSparkListener(new SparkListener() {
        @Override
        public void onApplicationEnd(SparkListenerApplicationEnd end) {
          owned.close();
        }
      });
    }
    if (cores == 0) {
      awaitExecutors(session, master, timeoutSeconds);
    }
    return session;
  }

  /**
   * On a cluster, unless the user chose them, one shuffle partition per executor core as it
   * stands when a pipeline starts: Spark's default of 200 makes hundreds of tiny tasks per stage
   * on a small cluster (embedded Spark gets one per core at start-up).
   */
  static void fitShufflePartitions(SparkSession session, WeirPipelineOptions options) {
    if (isLocal(session.sparkContext().master())) {
      return;
    }
    List<String> entries = options.getSparkConf();
    boolean chosen =
        (entries != null && SparkConfEntries.parse(entries).containsKey("spark.sql.shuffle.partitions"))
            || System.getProperty("spark.sql.shuffle.partitions") != null;
    if (!chosen) {
      int parallelism = Math.max(2, session.sparkContext().defaultParallelism());
      session.conf().set("spark.sql.shuffle.partitions", String.valueOf(parallelism));
      LOG.info("spark.sql.shuffle.partitions={}: the cluster's executor cores (--sparkConf sets another)", parallelism);
    }
  }

  /**
   * A standalone master that nothing answers at fails now, naming it, instead of after Spark's
   * three 20 s retries (which then leave a stopped context behind).
   */
  private static void checkReachable(String master, long timeoutSeconds) {
    Matcher m = STANDALONE.matcher(master);
    if (!m.matches()) {
      return;
    }
    String error = null;
    for (String hostPort : m.group(1).split(",")) {
      int colon = hostPort.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("Invalid --sparkMaster=" + master + ": expected spark://HOST:PORT");
      }
      String host = hostPort.substring(0, colon);
      int port;
      try {
        port = Integer.parseInt(hostPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Invalid --sparkMaster=" + master + ": the port is not a number", e);
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), (int) Math.min(TimeUnit.SECONDS.toMillis(timeoutSeconds), 10_000));
        return;
      } catch (IOException e) {
        error = host + ":" + port + ": " + e.getMessage();
      }
    }
    throw new IllegalStateException(
        "Cannot reach the Spark master of --sparkMaster=" + master + " (" + error + "): is it running, and is this its address?");
  }

  /**
   * Waits for the first executor: a cluster that cannot start one (a worker with the wrong Java,
   * jars it cannot fetch, no free cores) otherwise leaves every job waiting without an error.
   */
  private static void awaitExecutors(SparkSession session, String master, long timeoutSeconds) {
    SparkContext sc = session.sparkContext();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline && !sc.isStopped()) {
      // The driver itself is listed too.
      if (sc.statusTracker().getExecutorInfos().length > 1) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    boolean stopped = sc.isStopped();
    session.stop();
    forget();
    throw new IllegalStateException(stopped
        ? stoppedWhileStarting(master)
        : "No executor of --sparkMaster=" + master + " registered within --sparkStartTimeoutSeconds=" + timeoutSeconds
            + CLUSTER_LOGS);
  }

  private static String stoppedWhileStarting(String master) {
    return "Spark on --sparkMaster=" + master + " stopped while starting" + CLUSTER_LOGS;
  }

  /**
   * Why Spark did not start. A cluster master that gives the application up (its executors
   * cannot start) stops the SparkContext; when that happens before the context is fully built,
   * Spark throws its generic stopped-context error from the builder, not from a job, and the
   * user is told the same as when it happens while Weir waits for the first executor. Otherwise
   * the first line of Spark's message (the rest is call sites) and the cause.
   */
  static IllegalStateException startFailure(String master, RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalStateException && t.getMessage() != null && t.getMessage().startsWith(SPARK_STOPPED)) {
        return new IllegalStateException(stoppedWhileStarting(master), e);
      }
    }
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    return new IllegalStateException("Could not start Spark on --sparkMaster=" + master + ": " + message, e);
  }

  private static void forget() {
    SparkSession.clearDefaultSession();
    SparkSession.clearActiveSession();
  }

  private static void close(@Nullable FilesToStage staged) {
    if (staged != null) {
      staged.close();
    }
  }

  private static int localCores(String master) {
    Matcher m = LOCAL.matcher(master);
    if (!m.matches()) {
      return 0;
    }
    if (m.group(2) == null || m.group(2).equals("*")) {
      return master.equals("local") ? 1 : Runtime.getRuntime().availableProcessors();
    }
    return Integer.parseInt(m.group(2));
  }
}
