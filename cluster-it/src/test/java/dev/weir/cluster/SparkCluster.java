package dev.weir.cluster;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Spark standalone cluster for tests: one Master and two Workers (1 core, 2 GiB each) on
 * 127.0.0.1, separate JVMs run by the project's {@code ci/spark-cluster.sh} in a private
 * directory from the SPARK_HOME that {@code ci/spark-home.sh} built. {@link #executors} lists the
 * live executor JVMs of every application (a test kills one with {@link #kill9}); {@link #close}
 * stops the daemons and their executors (a shutdown hook does it if a test never gets there).
 */
public final class SparkCluster implements AutoCloseable {
  /** The script waits 60 s for the daemons; the JVMs start in ~10 s on two busy cores. */
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  /** The script gives each daemon a 10 s grace period before kill -9. */
  private static final Duration STOP_TIMEOUT = Duration.ofMinutes(1);
  private static final Duration LIST_TIMEOUT = Duration.ofSeconds(30);

  /** A live executor JVM: its pid and its directory, {@code DIR/worker-N/APP_ID/EXECUTOR_ID}. */
  public record Executor(long pid, Path dir) {
    public String appId() {
      return dir.getParent().getFileName().toString();
    }

    public String executorId() {
      return dir.getFileName().toString();
    }

    /** What the executor logged (Spark's default log4j2 configuration: INFO to stderr). */
    public Path stderr() {
      return dir.resolve("stderr");
    }
  }

  private final Path script;
  private final Path dir;
  private final Map<String, String> env;
  private final Thread shutdownHook;
  private boolean closed;

  private SparkCluster(Path script, Path dir, Map<String, String> env) {
    this.script = script;
    this.dir = dir;
    this.env = env;
    this.shutdownHook = new Thread(this::stopQuietly, "spark-cluster-stop " + dir);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts a Master and {@code workers} Workers whose logs and work dirs live in {@code dir}. */
  public static SparkCluster start(Path dir, int workers) throws IOException, InterruptedException {
    Path script = Repo.root().resolve("ci/spark-cluster.sh");
    Path absolute = dir.toAbsolutePath();
    run(script, absolute, START_TIMEOUT, "start", String.valueOf(workers));
    return new SparkCluster(script, absolute.toRealPath(), readEnv(absolute.resolve("cluster.env")));
  }

  /** {@code spark://127.0.0.1:PORT}. */
  public String master() {
    return required("WEIR_SPARK_MASTER");
  }

  /** The Master's web UI, {@code http://127.0.0.1:PORT} ({@code /json/} lists workers and apps). */
  public String masterWebUi() {
    return required("WEIR_SPARK_MASTER_WEB_UI");
  }

  /** The SPARK_HOME the daemons run from; a driver needs it to leave Spark's jars unstaged. */
  public Path sparkHome() {
    return Path.of(required("SPARK_HOME"));
  }

  public int workers() {
    return Integer.parseInt(required("WEIR_SPARK_WORKERS"));
  }

  /** The live executor JVMs of every application, as {@code ci/spark-cluster.sh executors} lists them. */
  public List<Executor> executors() throws IOException, InterruptedException {
    Path out = run(script, dir, LIST_TIMEOUT, "executors");
    List<Executor> executors = new ArrayList<>();
    for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
      String[] fields = line.trim().split(" ", 2);
      if (fields.length == 2) {
        executors.add(new Executor(Long.parseLong(fields[0]), Path.of(fields[1])));
      }
    }
    return executors;
  }

  /** The live executors of application {@code appId}. */
  public List<Executor> executors(String appId) throws IOException, InterruptedException {
    return executors().stream().filter(e -> e.appId().equals(appId)).toList();
  }

  /**
   * Every executor directory application {@code appId} had, live or not, oldest first per worker:
   * a killed executor's log stays there.
   */
  public List<Path> executorDirs(String appId) throws IOException {
    List<Path> dirs = new ArrayList<>();
    try (Stream<Path> workerDirs = Files.list(dir)) {
      for (Path worker : workerDirs.filter(p -> p.getFileName().toString().matches("worker-\\d+")).sorted().toList()) {
        Path app = worker.resolve(appId);
        if (Files.isDirectory(app)) {
          try (Stream<Path> execs = Files.list(app)) {
            execs.filter(Files::isDirectory).sorted().forEach(dirs::add);
          }
        }
      }
    }
    return dirs;
  }

  /**
   * {@code kill -9} of an executor JVM (SIGKILL: no shutdown hook, its blocks and shuffle files
   * gone with it for the driver), after checking that the pid is still that executor's.
   */
  public void kill9(Executor executor) throws IOException, InterruptedException {
    ProcessHandle process = ProcessHandle.of(executor.pid())
        .orElseThrow(() -> new IllegalStateException("executor " + executor + " is not running"));
    String command = process.info().commandLine().orElse("");
    if (!command.contains("org.apache.spark.executor.CoarseGrainedExecutorBackend")) {
      throw new IllegalStateException("pid " + executor.pid() + " is no executor any more: " + command);
    }
    process.destroyForcibly();
    try {
      process.onExit().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("executor " + executor + " outlived kill -9 by 30 s", e);
    }
  }

  /** Stops the Master, the Workers and any executor left; idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook runs (or ran) anyway
    }
    try {
      run(script, dir, STOP_TIMEOUT, "stop");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while stopping the cluster in " + dir);
    }
  }

  private void stopQuietly() {
    try {
      run(script, dir, STOP_TIMEOUT, "stop");
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("spark-cluster: could not stop the cluster in " + dir + ": " + e);
    }
  }

  private String required(String name) {
    String value = env.get(name);
    if (value == null) {
      throw new IllegalStateException("no " + name + " in " + dir.resolve("cluster.env"));
    }
    return value;
  }

  private static Map<String, String> readEnv(Path file) throws IOException {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  /**
   * Runs the script with its output in a file (so that the timeout holds even if a daemon kept a
   * pipe open) and returns that file; on timeout the script and its children are killed.
   */
  private static Path run(Path script, Path dir, Duration timeout, String... args)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path out = dir.resolve("spark-cluster-" + args[0] + ".out");
    List<String> command = new ArrayList<>(List.of("bash", script.toString(), args[0], dir.toString()));
    command.addAll(List.of(args).subList(1, args.length));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    // The daemons and executors run on this JVM's Java (17, as the build requires).
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
    Process process = pb.start();
    if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new IllegalStateException(script + " " + String.join(" ", args) + " did not end in " + timeout + ":\n"
          + Logs.tail(out, 80));
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(script + " " + String.join(" ", args) + " " + dir + " failed:\n" + Logs.tail(out, 80));
    }
    return out;
  }
}
