package dev.weir.nexmark;

import dev.weir.testing.VerifiedPipeline;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * The one place where this module's tests create their pipelines; each checks, when it has run,
 * that its PAsserts all ran ({@link VerifiedPipeline}).
 */
public final class TestPipelines {
  private TestPipelines() {}

  /**
   * A pipeline on {@code runner} that honours what the queries ask for: on WeirRunner in batch
   * the user's triggers ({@code --windowTriggers=ALLOW}; its batch default fires each window once,
   * which would hide query 6's early panes and query 10's panes) and processing time, which query
   * 12 runs on (batch refuses it unless allowed). Streaming has these by default. The DirectRunner
   * ignores the options it does not know, and WeirRunner the DirectRunner's: its target
   * parallelism (by default the cores, at least 3) is also the number of splits it asks the
   * unbounded source for, and the tests' streams have 4 generators, so 4 reads one generator per
   * split. Query 7 in streaming keeps the DirectRunner busy re-trying the elements it pushed back
   * until the side input is ready, at the end of the input: about 200 s here with 4 splits, 500 s
   * with 3, whose reads that retrying slows down more.
   */
  public static Pipeline create(String runner, String... more) {
    List<String> args = new ArrayList<>(List.of(
        "--runner=" + runner, "--sparkMaster=local[2]", "--blockOnRun=true",
        "--windowTriggers=ALLOW", "--processingTimeTimers=ALLOW", "--processingTimeEndOfInput=FIRE_AND_QUIESCE",
        "--targetParallelism=4"));
    args.addAll(List.of(more));
    return VerifiedPipeline.create(PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).withoutStrictParsing().create());
  }
}
