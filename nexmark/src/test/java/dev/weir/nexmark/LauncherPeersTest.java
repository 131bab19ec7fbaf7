package dev.weir.nexmark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.nexmark.launcher.ResultsHistory;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's --allowRefused, with runners that refuse or fail every pipeline. */
class LauncherPeersTest {
  /** Refuses every pipeline before running it, as a runner refuses a feature it lacks. */
  public static final class Refusing extends PipelineRunner<PipelineResult> {
    public static Refusing fromOptions(PipelineOptions options) {
      return new Refusing();
    }

    @Override
    public PipelineResult run(Pipeline pipeline) {
      throw new UnsupportedOperationException("Refusing runs no pipeline");
    }
  }

  /** Accepts every pipeline and fails it, as a runner fails at run time. */
  public static final class Failing extends PipelineRunner<PipelineResult> {
    public static Failing fromOptions(PipelineOptions options) {
      return new Failing();
    }

    @Override
    public PipelineResult run(Pipeline pipeline) {
      throw new Pipeline.PipelineExecutionException(new IllegalStateException("Failing failed"));
    }
  }

  private static String[] args(Path dir, Class<?> runner, String... more) {
    String[] base = {"--runner=" + runner.getName(), "--query=0,2", "--numEvents=1000",
      "--historyUrl=jdbc:h2:" + dir.resolve("history"), "--dashboard=" + dir.resolve("dashboard.html")};
    String[] all = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void withoutTheOptionARefusedQueryFailsTheLaunchAndAFailedOneThrows(@TempDir Path dir) throws Exception {
    assertThat(Launcher.run(args(dir, Refusing.class)), is(false));
    assertThrows(Pipeline.PipelineExecutionException.class, () -> Launcher.run(args(dir, Failing.class)));
  }

  @Test
  void withItRefusedAndFailedQueriesAreReportedAndNotRecorded(@TempDir Path dir) throws Exception {
    assertThat(Launcher.run(args(dir, Refusing.class, "--allowRefused")), is(true));
    assertThat(Launcher.run(args(dir, Failing.class, "--allowRefused")), is(true));
    try (ResultsHistory history = new ResultsHistory("jdbc:h2:" + dir.resolve("history"))) {
      assertThat(history.all().size(), equalTo(0));
    }
  }
}
