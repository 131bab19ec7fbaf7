package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.weir.nexmark.Launcher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nexmark's SMOKE suite on a two-worker standalone cluster through the Nexmark launcher, in a
 * driver JVM of its own, in batch and in streaming: the launcher checks every query's results
 * against its reference model and exits non-zero if one is wrong or refused; here its exit code
 * must be 0 and its table must list every query asked for as correct. The results history is a
 * private H2 file, so the project's history is not touched.
 *
 * <p>Streaming runs with {@link CheckpointDirPerPipelineRunner}: the launcher gives every
 * pipeline of a launch the same {@code --checkpointDir}, which a cluster needs and which belongs
 * to one pipeline (see README.md).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class NexmarkOnClusterTest extends TwoWorkerClusterTest {
  private static final Duration LAUNCH_TIMEOUT = Duration.ofMinutes(7);
  /** A row of the launcher's table: query, name, runtime, events/s, results, correct, vs baseline, heap, latency. */
  private static final Pattern ROW =
      Pattern.compile("^\\s*(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(yes|NO|REFUSED)\\s+(\\S+)(?:\\s+(\\S+)){0,2}\\s*$");
  /** All of SMOKE: queries 0 to 14. */
  private static final List<Integer> ALL = IntStream.rangeClosed(0, 14).boxed().toList();


  @Test
  void smokeInBatchEqualsTheModels() throws Exception {
    // As ci/nexmark-smoke.sh runs WeirRunner in batch: query 12's processing-time panes allowed,
    // triggers honoured.
    launch("nexmark-batch", ALL, List.of("--runner=WeirRunner", "--processingTimeTimers=ALLOW",
        "--processingTimeEndOfInput=FIRE_AND_QUIESCE", "--windowTriggers=ALLOW"));
  }

  @Test
  void smokeInStreamingWithACheckpointDirEqualsTheModels() throws Exception {
    launch("nexmark-streaming", ALL, List.of("--runner=" + CheckpointDirPerPipelineRunner.class.getName(),
        "--mode=STREAMING", "--checkpointDir=" + tmp.resolve("checkpoints")));
  }

  private static void launch(String name, List<Integer> queries, List<String> runnerArgs) throws Exception {
    List<String> args = new ArrayList<>(runnerArgs);
    args.add("--sparkMaster=" + cluster.master());
    args.add("--suite=SMOKE");
    args.add("--query=" + queries.stream().map(String::valueOf).collect(Collectors.joining(",")));
    args.add("--runId=cluster-it-" + name);
    args.add("--historyUrl=jdbc:h2:" + tmp.resolve(name + "-history"));
    args.add("--dashboard=" + tmp.resolve(name + "-dashboard.html"));
    try (DriverJvm driver = DriverJvm.java(tmp, name, cluster.sparkHome(), "2g", Launcher.class.getName(), args)) {
      int exit = driver.awaitExit(LAUNCH_TIMEOUT);
      Map<Integer, String> correct = table(driver.output());
      Map<Integer, String> allYes = new TreeMap<>();
      queries.forEach(q -> allYes.put(q, "yes"));
      assertThat("correct, per query, in the launcher's table (log " + driver.log() + ")", correct, equalTo(allYes));
      assertThat("the launcher's exit code (log " + driver.log() + ")", exit, equalTo(0));
      assertThat("executors that ran tasks", driver.eventLog().executorsThatRanTasks().size(), equalTo(cluster.workers()));
    }
  }

  /** The launcher's table: query number to its "correct" column. */
  private static Map<Integer, String> table(String output) {
    Map<Integer, String> correct = new TreeMap<>();
    boolean inTable = false;
    for (String line : output.split("\n")) {
      if (line.startsWith("Nexmark on ")) {
        inTable = true;
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (inTable && m.matches()) {
        correct.put(Integer.parseInt(m.group(1)), m.group(6));
      }
    }
    return correct;
  }
}
