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
