package dev.weir.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import dev.weir.examples.WordCount;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The word count example on a two-worker standalone cluster, run as the README says: once from a
 * plain {@code java -cp} driver with {@code --sparkMaster=spark://...} (WeirRunner stages the
 * driver's classpath to the executors), once through {@code ci/spark-submit.sh} with the bundled
 * application jar. Each run's top words must be those of {@code examples/data/weir.txt}, counted
 * here the way {@link WordCount} defines a word, and tasks must have run on both executors
 * (Spark's event log says where each task ran).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class WordCountOnClusterTest extends TwoWorkerClusterTest {
  private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);
  private static final int TOP = 10;


  @Test
  void javaDriverStagesItsClasspathAndCountsTheWords() throws Exception {
    Path output = tmp.resolve("java-top-words.txt");
    try (DriverJvm driver = DriverJvm.java(tmp, "wordcount-java", cluster.sparkHome(), "1g", WordCount.class.getName(),
        List.of("--runner=WeirRunner", "--sparkMaster=" + cluster.master(), "--inputFile=" + Repo.wordCountInput(),
            "--output=" + output, "--top=" + TOP))) {
      driver.assertSucceeds(DRIVER_TIMEOUT);
      assertThat(driver.output(), containsString("Staging "));
      assertTopWords(output, driver);
    }
  }

  @Test
  void sparkSubmitRunsTheBundleAndCountsTheWords() throws Exception {
    Path output = tmp.resolve("submit-top-words.txt");
    try (DriverJvm driver = DriverJvm.sparkSubmit(tmp, "wordcount-submit", cluster, Repo.bundleJar(), WordCount.class.getName(),
        List.of("--runner=WeirRunner", "--inputFile=" + Repo.wordCountInput(), "--output=" + output, "--top=" + TOP))) {
      driver.assertSucceeds(DRIVER_TIMEOUT);
      // Under spark-submit the application jar is what the executors get: nothing is staged.
      assertThat(driver.output(), not(containsString("Staging ")));
      assertTopWords(output, driver);
    }
  }

  /**
   * Executors that cannot start (here: the workers are told to launch them with a Java that does
   * not exist) are reported, not waited on: the Master gives the application up after its
   * executor retries, and the driver fails within {@code --sparkStartTimeoutSeconds}, naming the
   * master, without having run a job.
   */
  @Test
  void executorsThatCannotStartFailThePipelineNamingTheMaster() throws Exception {
    Path output = tmp.resolve("never-written.txt");
    try (DriverJvm driver = DriverJvm.java(tmp, "wordcount-no-java", cluster.sparkHome(), "1g", WordCount.class.getName(),
        List.of("--runner=WeirRunner", "--sparkMaster=" + cluster.master(), "--inputFile=" + Repo.wordCountInput(),
            "--output=" + output, "--sparkStartTimeoutSeconds=60",
            "--sparkConf=spark.executorEnv.JAVA_HOME=/nonexistent-java"))) {
      int exit = driver.awaitExit(DRIVER_TIMEOUT);
      assertThat("exit code (log " + driver.log() + ")", exit, not(equalTo(0)));
      assertThat(driver.output(), containsString("--sparkMaster=" + cluster.master()));
      assertThat(driver.output(), org.hamcrest.Matchers.anyOf(
          containsString("stopped while starting"), containsString("registered within --sparkStartTimeoutSeconds=60")));
      assertThat("output written", Files.exists(output), equalTo(false));
    }
  }

  private static void assertTopWords(Path output, DriverJvm driver) throws Exception {
    List<String> written = new ArrayList<>(Files.readAllLines(output, StandardCharsets.UTF_8));
    written.sort(null);
    assertThat("top words written by " + driver, written, equalTo(expectedTop(Repo.wordCountInput(), TOP)));
    assertThat(driver.output(), containsString("Top " + TOP + " words of " + Repo.wordCountInput() + ":"));
    EventLog events = driver.eventLog();
    assertThat("executors that ran tasks for " + driver, events.executorsThatRanTasks().size(), equalTo(cluster.workers()));
  }

  /**
   * The top words of {@code input} as WordCount defines them: lines lower-cased (root locale) and
   * split at every run of characters that are neither letters nor apostrophes, empty pieces
   * dropped; the {@code n} most frequent, ties going to the word first in alphabetical order; one
   * {@code word: count} line each, here sorted.
   */
  static List<String> expectedTop(Path input, int n) throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : Files.readAllLines(input, StandardCharsets.UTF_8)) {
      for (String word : line.toLowerCase(Locale.ROOT).split("[^\\p{L}']+")) {
        if (!word.isEmpty()) {
          counts.merge(word, 1L, Long::sum);
        }
      }
    }
    return counts.entrySet().stream()
        .sorted(Comparator.<Map.Entry<String, Long>>comparingLong(Map.Entry::getValue).reversed()
            .thenComparing(Map.Entry::getKey))
        .limit(n)
        .map(e -> e.getKey() + ": " + e.getValue())
        .sorted()
        .toList();
  }
}
