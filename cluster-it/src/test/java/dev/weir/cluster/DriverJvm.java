package dev.weir.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A pipeline's driver in a JVM of its own, run as a user runs one: {@code java -cp CLASSPATH MAIN
 * ARGS} (this test JVM's classpath, which WeirRunner stages to the executors) or {@code
 * ci/spark-submit.sh ... APP_JAR MAIN ARGS}, with {@code SPARK_HOME} and {@code
 * SPARK_LOCAL_IP=127.0.0.1} in its environment. Its output goes to a log file; Spark's event log
 * ({@code spark.eventLog.*}, uncompressed, one file) to a directory of its own, which {@link
 * #eventLog} reads once the driver has ended. The test owns the JVM: {@link #awaitExit} kills it
 * at its deadline (a driver whose master died can hang forever), {@link #close} kills it if it
 * still runs, and a shutdown hook does so if the test JVM ends first.
 */
final class DriverJvm implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;
  private final Path eventLogDir;
  private final Thread shutdownHook;

  private DriverJvm(String name, Process process, Path log, Path eventLogDir) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.eventLogDir = eventLogDir;
    this.shutdownHook = new Thread(this::killQuietly, "driver-kill " + name);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * {@code java -cp <this JVM's classpath> mainClass args}, files under {@code dir/name*}.
   *
   * @param sparkHome the cluster's SPARK_HOME (WeirRunner leaves its jars unstaged), or null
   */
  static DriverJvm java(Path dir, String name, @Nullable Path sparkHome, String heap, String mainClass, List<String> args)
      throws IOException {
    Path eventLogDir = Files.createDirectories(dir.resolve(name + "-events"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Repo.java17Opens());
    command.add("-Xmx" + heap);
    command.add("-Dlog4j2.configurationFile=" + resource("log4j2-driver.properties"));
    // Spark reads spark.* system properties as settings: the event log, and a UI on a free port.
    for (String setting : eventLogSettings(eventLogDir)) {
      command.add("-D" + setting);
    }
    command.add("-Dspark.ui.port=0");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    return start(dir, name, sparkHome, eventLogDir, command);
  }

  /** {@code ci/spark-submit.sh --master M [--conf ...] --class mainClass appJar args}. */
  static DriverJvm sparkSubmit(Path dir, String name, SparkCluster cluster, Path appJar, String mainClass, List<String> args)
      throws IOException {
    Path eventLogDir = Files.createDirectories(dir.resolve(name + "-events"));
    List<String> command = new ArrayList<>(List.of("bash", Repo.root().resolve("ci/spark-submit.sh").toString()));
    command.addAll(List.of("--master", cluster.master()));
    for (String setting : eventLogSettings(eventLogDir)) {
      command.addAll(List.of("--conf", setting));
    }
    command.addAll(List.of("--conf", "spark.ui.port=0"));
    command.addAll(List.of("--class", mainClass, appJar.toString()));
    command.addAll(args);
    return start(dir, name, cluster.sparkHome(), eventLogDir, command);
  }

  private static List<String> eventLogSettings(Path eventLogDir) {
    return List.of(
        "spark.eventLog.enabled=true",
        "spark.eventLog.dir=" + eventLogDir.toUri(),
        "spark.eventLog.compress=false",
        "spark.eventLog.rolling.enabled=false");
  }

  private static DriverJvm start(Path dir, String name, @Nullable Path sparkHome, Path eventLogDir, List<String> command)
      throws IOException {
    Path log = dir.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.directory(dir.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
    if (sparkHome != null) {
      pb.environment().put("SPARK_HOME", sparkHome.toString());
    } else {
      pb.environment().remove("SPARK_HOME");
    }
    Files.writeString(dir.resolve(name + ".command"), String.join(" ", command));
    return new DriverJvm(name, pb.start(), log, eventLogDir);
  }

  private static Path resource(String name) {
    try {
      return Path.of(DriverJvm.class.getResource("/" + name).toURI());
    } catch (java.net.URISyntaxException | NullPointerException e) {
      throw new IllegalStateException("no test resource " + name, e);
    }
  }

  Path log() {
    return log;
  }

  /** Everything the driver printed so far. */
  String output() {
    return Logs.read(log);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Why a test waiting on this driver should stop waiting: it exited; null while it runs. */
  @Nullable
  String exited() {
    return process.isAlive() ? null : name + " exited with " + process.exitValue() + ": see " + log + "\n" + Logs.tail(log, 40);
  }

  /**
   * Waits for the driver to end and returns its exit code; at the deadline kills it ({@code kill
   * -9}, with its children) and fails with the end of its log.
   */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill9();
      throw new AssertionError(name + " did not end within " + timeout + " and was killed: see " + log + "\n"
          + Logs.tail(log, 60));
    }
    return process.exitValue();
  }

  /** Fails unless the driver ends within {@code timeout} with exit code 0. */
  void assertSucceeds(Duration timeout) throws InterruptedException {
    int code = awaitExit(timeout);
    if (code != 0) {
      throw new AssertionError(name + " exited with " + code + ": see " + log + "\n" + Logs.tail(log, 60));
    }
  }

  /** {@code kill -9} (SIGKILL) of the driver and whatever it started, if it still runs. */
  void kill9() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " outlived kill -9 by 30 s");
    }
  }

  /** The Spark application id, once the driver has registered with its master (the event log's name). */
  Optional<String> appId() throws IOException {
    try (Stream<Path> files = Files.list(eventLogDir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("app-") || n.startsWith("local-"))
          .map(n -> n.replace(".inprogress", ""))
          .findFirst();
    }
  }

  /** Spark's event log of the application; complete once the driver has ended normally. */
  EventLog eventLog() throws IOException {
    try (Stream<Path> files = Files.list(eventLogDir)) {
      List<Path> logs = files.filter(p -> !p.getFileName().toString().startsWith(".")).toList();
      if (logs.size() != 1) {
        throw new IllegalStateException("expected one event log in " + eventLogDir + ", found " + logs);
      }
      return EventLog.read(logs.get(0));
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook runs (or ran) anyway
    }
    if (process.isAlive()) {
      kill9();
    }
  }

  private void killQuietly() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  @Override
  public String toString() {
    return name + " (log " + log + ")";
  }
}
