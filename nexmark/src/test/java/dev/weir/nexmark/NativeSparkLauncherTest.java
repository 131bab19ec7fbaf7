package dev.weir.nexmark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.nexmark.launcher.ResultsHistory;
import dev.weir.nexmark.launcher.RunRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's native Spark queries ({@code --nativeSparkMaster}): each checked against its
 * reference model like a Beam runner's run, recorded as SparkNative with its heap figures.
 */
class NativeSparkLauncherTest {
  private static String[] args(Path dir, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("--nativeSparkMaster=local[2]", "--numEvents=5000",
        "--runId=native", "--historyUrl=jdbc:h2:" + dir.resolve("history"), "--dashboard=" + dir.resolve("dashboard.html")));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void queriesZeroOneTwoAndFiveEqualTheirModels(@TempDir Path dir) throws Exception {
    assertThat(Launcher.run(args(dir, "--query=0,1,2,5")), is(true));
    try (ResultsHistory history = new ResultsHistory("jdbc:h2:" + dir.resolve("history"))) {
      List<RunRecord> runs = history.all();
      assertThat(runs.stream().map(r -> r.runner() + " q" + r.query() + " " + r.correct()).toList(),
          equalTo(List.of("SparkNative q0 true", "SparkNative q1 true", "SparkNative q2 true", "SparkNative q5 true")));
      // Query 0 passes every event through.
      assertThat(runs.get(0).results(), equalTo(5000L));
      assertThat(runs.stream().allMatch(r -> r.peakHeapMb() > 0), is(true));
    }
  }

  @Test
  void otherQueriesAreRefusedAndStreamingIsAnError(@TempDir Path dir) throws Exception {
    assertThat(Launcher.run(args(dir, "--query=3")), is(false));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Launcher.run(args(dir, "--query=0", "--mode=STREAMING")));
    assertThat(e.getMessage(), containsString("--nativeSparkMaster"));
  }
}
