package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.junit.jupiter.api.Test;

/** Cluster masters as a user gets them wrong, without a cluster. */
class SparkSessionsTest {
  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void anUnreachableMasterFailsAtOnceNamingItAndLeavesTheNextPipelineAlone() throws Exception {
    String master = "spark://127.0.0.1:" + freePort();
    Pipeline p = Pipelines.create("--sparkMaster=" + master);
    p.apply(Create.of(1, 2, 3));
    long start = System.nanoTime();
    IllegalStateException e = assertThrows(IllegalStateException.class, p::run);
    assertThat(e.getMessage(), containsString("Cannot reach the Spark master of --sparkMaster=" + master));
    assertThat(e.getMessage(), containsString("Connection refused"));
    // Spark's own retries take a minute; this is a connect on loopback.
    assertThat(System.nanoTime() - start, lessThan(TimeUnit.SECONDS.toNanos(30)));

    Pipeline next = Pipelines.create();
    PAssert.thatSingleton(next.apply(Create.of(1, 2, 3)).apply(Count.globally())).isEqualTo(3L);
    assertThat(next.run().getState(), equalTo(PipelineResult.State.DONE));
  }

  /**
   * A cluster that gives the application up while Spark is still building its context (the
   * master's executor retries can run out in a second) makes Spark's builder throw its generic
   * stopped-context error; the user is told what happened, as when it happens later while
   * waiting for executors. The text is Spark 4.2's (SparkContext.assertNotStopped).
   */
  @Test
  void aContextStoppedWhileBeingBuiltIsReportedAsStoppedWhileStarting() {
    String master = "spark://127.0.0.1:7077";
    IllegalStateException spark = new IllegalStateException("Cannot call methods on a stopped SparkContext.\n"
        + "This stopped SparkContext was created at:\n\norg.apache.spark.sql.SparkSession$Builder.getOrCreate(SparkSession.scala:929)\n");
    for (RuntimeException thrown : new RuntimeException[] {spark, new RuntimeException("wrapped", spark)}) {
      IllegalStateException e = SparkSessions.startFailure(master, thrown);
      assertThat(e.getMessage(), equalTo("Spark on --sparkMaster=" + master + " stopped while starting: check the master's "
          + "and workers' logs (free cores and memory, the workers' Java, the staged jars)"));
      assertThat(e.getCause(), equalTo(thrown));
    }

    IllegalStateException other = SparkSessions.startFailure(master,
        new IllegalArgumentException("Executor memory 1 must be at least 471859200.\nPlease increase heap size"));
    assertThat(other.getMessage(), equalTo(
        "Could not start Spark on --sparkMaster=" + master + ": Executor memory 1 must be at least 471859200."));
  }

  @Test
  void streamingOnAClusterWithoutACheckpointDirIsRefusedBeforeItStarts() throws Exception {
    Pipeline p = Pipelines.create("--sparkMaster=spark://127.0.0.1:" + freePort());
    p.apply(GenerateSequence.from(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, p::run);
    assertThat(e.getMessage(), containsString("needs --checkpointDir"));
  }

  @Test
  void underSparkSubmitAnExplicitMasterThatDisagreesIsAnError() {
    String before = System.getProperty("spark.master");
    System.setProperty("spark.master", "spark://127.0.0.1:7077");
    System.setProperty("spark.submit.deployMode", "client");
    try {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> WeirRunner.fromOptions(Pipelines.options("--sparkMaster=local[2]")));
      assertThat(e.getMessage(), containsString("--sparkMaster=local[2] disagrees with spark-submit's --master spark://127.0.0.1:7077"));
      // Left out, spark-submit's master is the default.
      WeirPipelineOptions defaults = org.apache.beam.sdk.options.PipelineOptionsFactory.create().as(WeirPipelineOptions.class);
      assertThat(defaults.getSparkMaster(), equalTo("spark://127.0.0.1:7077"));
    } finally {
      System.clearProperty("spark.submit.deployMode");
      if (before == null) {
        System.clearProperty("spark.master");
      } else {
        System.setProperty("spark.master", before);
      }
    }
  }
}
