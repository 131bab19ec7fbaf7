package dev.weir.runner;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark session lifecycle. One session per JVM is shared by every pipeline on the same
 * master: starting Spark takes seconds, and a test JVM runs hundreds of pipelines. A pipeline
 * on another master replaces it. Spark stops the last one in its own shutdown hook.
 */
final class SparkSessions {
  private static final Logger LOG = LoggerFactory.getLogger(SparkSessions.class);
  private static final Pattern LOCAL = Pattern.compile("local(\\[(\\*|\\d+)(,\\d+)?])?");
  private static final Pattern MASTER = Pattern.compile("local(\\[(\\*|\\d+)(,\\d+)?])?|spark://.+|yarn|k8s://.+");
  static final String ACCEPTED_MASTERS =
      "local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn, k8s://URL";

  private SparkSessions() {}

  /** Checks {@code --sparkMaster} and {@code --sparkConf} without starting anything. */
  static Map<String, String> validate(WeirPipelineOptions options) {
    String master = options.getSparkMaster();
    if (master == null || !MASTER.matcher(master).matches()) {
      throw new IllegalArgumentException(
          "Invalid --sparkMaster=" + master + ": accepted values are " + ACCEPTED_MASTERS);
    }
    Map<String, String> conf = new TreeMap<>();
    List<String> entries = options.getSparkConf();
    if (entries != null) {
      for (String entry : entries) {
        int eq = entry.indexOf('=');
        if (eq <= 0 || !entry.startsWith("spark.")) {
          throw new IllegalArgumentException(
              "Invalid --sparkConf entry '" + entry + "': expected spark.<setting>=<value>, "
                  + "e.g. --sparkConf=spark.sql.shuffle.partitions=8");
        }
        conf.put(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    return conf;
  }

  static synchronized SparkSession getOrCreate(WeirPipelineOptions options) {
    Map<String, String> conf = validate(options);
    JavaModules.checkOpens();
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    SparkClasspath.check(loader != null ? loader : SparkSessions.class.getClassLoader());
    SparkSession.Builder builder =
        SparkSession.builder().master(options.getSparkMaster()).appName(options.getAppName());
    int cores = localCores(options.getSparkMaster());
    if (cores > 0 && !conf.containsKey("spark.sql.shuffle.partitions")) {
      // Spark's default of 200 shuffle partitions is made for clusters; embedded Spark gets
      // one per core.
      builder.config("spark.sql.shuffle.partitions", String.valueOf(Math.max(2, cores)));
    }
    conf.forEach(builder::config);
    scala.Option<SparkSession> existing = SparkSession.getDefaultSession();
    if (existing.isDefined() && !existing.get().sparkContext().master().equals(options.getSparkMaster())) {
      // One SparkContext per JVM: a pipeline that asks for another master gets a new one.
      LOG.info(
          "Stopping the Spark session on {} to start one on --sparkMaster={}",
          existing.get().sparkContext().master(),
          options.getSparkMaster());
      existing.get().stop();
    }
    return builder.getOrCreate();
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
