package dev.weir.cluster;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class whose tests share one standalone cluster of a master and two workers ({@link
 * SparkCluster}), started before the first test in the class's temporary directory and stopped
 * after the last; the directory stays when a test fails, with the daemons' and drivers' logs.
 */
abstract class TwoWorkerClusterTest {
  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path tmp;

  static SparkCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SparkCluster.start(tmp.resolve("cluster"), 2);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }
}
