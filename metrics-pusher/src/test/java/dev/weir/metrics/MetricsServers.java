package dev.weir.metrics;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Real metric servers for tests: a Graphite carbon-cache and a Prometheus Pushgateway on
 * 127.0.0.1, started by the project's {@code ci/metrics-servers.sh} in a private directory and
 * stopped by {@link #close}. Their Debian packages come from {@code ci/install-test-deps.sh},
 * which the README's test command runs.
 */
public final class MetricsServers implements AutoCloseable {
  private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(90);

  private final Path script;
  private final Path dir;
  private final Map<String, String> env;

  private MetricsServers(Path script, Path dir, Map<String, String> env) {
    this.script = script;
    this.dir = dir;
    this.env = env;
  }

  public static MetricsServers start(Path dir) throws IOException, InterruptedException {
    Path script = repoRoot().resolve("ci/metrics-servers.sh");
    run(script, "start", dir);
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(dir.resolve("servers.env"), StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return new MetricsServers(script, dir, env);
  }

  private static Path repoRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("ci/metrics-servers.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("ci/metrics-servers.sh not found above " + Path.of("").toAbsolutePath());
  }

  private static String run(Path script, String command, Path dir) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("bash", script.toString(), command, dir.toString()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(SCRIPT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(script + " " + command + " did not end in " + SCRIPT_TIMEOUT);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          script + " " + command + " failed (install the servers with ci/install-test-deps.sh):\n" + output);
    }
    return output;
  }

  public String carbonHost() {
    return env.get("WEIR_CARBON_HOST");
  }

  public int carbonPort() {
    return Integer.parseInt(env.get("WEIR_CARBON_PORT"));
  }

  public URI pushgatewayUrl() {
    return URI.create(env.get("WEIR_PUSHGATEWAY_URL"));
  }

  /**
   * The value carbon stored for {@code path} at {@code epochSecond}, read back from its whisper
   * file with Debian's {@code whisper-fetch}; polls until it is there (carbon writes its cache
   * out about once a second), or fails after {@code timeout}.
   */
  public double whisperValue(String path, long epochSecond, Duration timeout) throws IOException, InterruptedException {
    return latestWhisperValue(path, epochSecond, epochSecond, timeout);
  }

  /**
   * The latest value carbon stored for {@code path} between two seconds (inclusive), polling
   * until there is one or {@code timeout} passes.
   */
  public double latestWhisperValue(String path, long fromSecond, long untilSecond, Duration timeout)
      throws IOException, InterruptedException {
    Path file = Path.of(env.get("WEIR_CARBON_WHISPER_DIR")).resolve(path.replace('.', '/') + ".wsp");
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "(no whisper file yet)";
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        Process p = new ProcessBuilder(
                "whisper-fetch", "--from=" + (fromSecond - 1), "--until=" + untilSecond, file.toString())
            .redirectErrorStream(true)
            .start();
        last = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        Double latest = null;
        for (String line : List.of(last.split("\n"))) {
          String[] parts = line.trim().split("\\s+");
          if (parts.length == 2 && !parts[1].equals("None")) {
            latest = Double.parseDouble(parts[1]);
          }
        }
        if (latest != null) {
          return latest;
        }
      }
      TimeUnit.MILLISECONDS.sleep(150);
    }
    throw new AssertionError("carbon stored no value for " + path + " in [" + fromSecond + ", " + untilSecond
        + "] within " + timeout + "; last whisper-fetch output: " + last);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run(script, "stop", dir);
  }
}
