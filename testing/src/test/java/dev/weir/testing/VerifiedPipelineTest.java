package dev.weir.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResults;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

class VerifiedPipelineTest {
  @Test
  void anAssertionThatRanPassesOnTheDirectRunner() {
    Pipeline p = VerifiedPipeline.create(PipelineOptionsFactory.fromArgs("--runner=DirectRunner").create());
    PAssert.that(p.apply(Create.of(1, 2, 3))).containsInAnyOrder(1, 2, 3);
    PAssert.thatSingleton(p.apply("One", Create.of(7))).isEqualTo(7);
    p.run();
  }

  @Test
  void anAssertionThatNeverRanFails() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(RunsNothing.class);
    Pipeline p = VerifiedPipeline.create(options);
    PAssert.that(p.apply(Create.of(1, 2, 3))).containsInAnyOrder(1, 2, 3);
    AssertionError e = assertThrows(AssertionError.class, p::run);
    assertThat(e.getMessage(), containsString("has 1 PAssert assertion(s), but 0 ran"));
  }

  @Test
  void aPipelineWithoutAssertionsNeedsNone() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(RunsNothing.class);
    Pipeline p = VerifiedPipeline.create(options);
    p.apply(Create.of(1, 2, 3));
    p.run();
  }

  /** A runner that reports success without running anything: what a lost pane looks like. */
  public static final class RunsNothing extends PipelineRunner<PipelineResult> {
    public static RunsNothing fromOptions(PipelineOptions options) {
      return new RunsNothing();
    }

    @Override
    public PipelineResult run(Pipeline pipeline) {
      return new PipelineResult() {
        @Override
        public State getState() {
          return State.DONE;
        }

        @Override
        public State cancel() {
          return State.DONE;
        }

        @Override
        public State waitUntilFinish(Duration duration) {
          return State.DONE;
        }

        @Override
        public State waitUntilFinish() {
          return State.DONE;
        }

        @Override
        public MetricResults metrics() {
          return new MetricResults() {
            @Override
            public MetricQueryResults queryMetrics(MetricsFilter filter) {
              return MetricQueryResults.create(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
            }
          };
        }
      };
    }
  }
}
