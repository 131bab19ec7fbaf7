package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The crash test on a cluster: {@link WindowSumsPipeline} (keyed state, event-time timers, a
 * queue-like source, a file sink) with {@code --checkpointDir}, its driver JVM killed with {@code
 * kill -9} at random committed epochs and started again, each time a new Spark application on the
 * same two workers: the Master ends the dead driver's executors, and nothing of the state is left
 * in any executor's memory. Every restart must resume from the checkpoint dir, a kill inside an
 * epoch that had begun reading must be replayed by the restart, and the output must
 * be what the input makes: every window's file, every line, nothing missing and nothing twice;
 * the source must see no mark finalized before its epoch was committed.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class DriverKillOnClusterTest extends TwoWorkerClusterTest {
  private static final int KILLS = 3;
  private static final long VALUES = 240;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(3);


  @Test
  void killedAtRandomEpochsAndRestartedOnTheClusterTheOutputIsWhatTheInputMakes() throws Exception {
    Path out = tmp.resolve("windows");
    Path acks = Files.createDirectories(tmp.resolve("acks"));
    Path checkpoints = tmp.resolve("checkpoints");
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    List<String> kills = new ArrayList<>();
    for (int i = 0; i < KILLS; i++) {
      long target = Checkpoints.committedEpoch(checkpoints) + 1 + random.nextInt(4);
      // The first two kills wait until the next epoch has recorded what its sources read, so the
      // kill lands inside it (unless it commits in the ms before): the restart replays it.
      boolean insideAnEpoch = i < 2;
      try (DriverJvm driver = start("driver-" + i, out, acks, checkpoints)) {
        Poll.until("epoch " + target + " committed (seed " + seed + ")", RUN_TIMEOUT, () -> {
          long committed = Checkpoints.committedEpoch(checkpoints);
          return committed >= target && (!insideAnEpoch || Checkpoints.hasReadPlan(checkpoints, committed + 1));
        }, driver::exited);
        if (!insideAnEpoch) {
          Thread.sleep(random.nextInt(300)); // a random point after the commit, not a wait for something
        }
        driver.kill9();
        kills.add("after epoch " + Checkpoints.committedEpoch(checkpoints));
        if (i > 0) {
          assertThat("run " + i + " resumed", driver.output(), containsString("Resuming after epoch"));
        }
      }
    }
    try (DriverJvm last = start("driver-last", out, acks, checkpoints)) {
      last.assertSucceeds(RUN_TIMEOUT);
      assertThat("the last run resumed", last.output(), containsString("Resuming after epoch"));
    }
    String replay = "runs again with the clock and reads it had";
    assertTrue(Logs.read(tmp.resolve("driver-1.log")).contains(replay) || Logs.read(tmp.resolve("driver-2.log")).contains(replay),
        "two kills landed inside an epoch that had begun reading, but no restart replayed it: see " + tmp);
    assertThat("windows written (kills " + kills + ", seed " + seed + ")", Outputs.windowFiles(out),
        equalTo(WindowSumsPipeline.expected(VALUES)));
    assertThat("marks finalized too early", AckingQueueSource.violations(acks), equalTo(""));
    assertThat("what the splits acknowledged at the end", AckingQueueSource.acknowledgements(acks),
        equalTo(List.of(VALUES, VALUES + 1)));
  }

  private static DriverJvm start(String name, Path out, Path acks, Path checkpoints) throws Exception {
    return DriverJvm.java(tmp, name, cluster.sparkHome(), "1g", WindowSumsPipeline.class.getName(),
        List.of(out.toString(), acks.toString(), String.valueOf(VALUES),
            "--sparkMaster=" + cluster.master(), "--checkpointDir=" + checkpoints, "--epochMaxRecords=4"));
  }
}
