package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

class WeirRunnerTest {

  @Test
  void runnerAndOptionsAreRegistered() {
    PipelineOptions options = PipelineOptionsFactory.fromArgs("--runner=WeirRunner").create();
    assertThat(options.getRunner(), equalTo(WeirRunner.class));
    WeirPipelineOptions weir = options.as(WeirPipelineOptions.class);
    assertThat(weir.getSparkMaster(), equalTo("local[*]"));
    assertThat(weir.getRuntimeMode(), equalTo(WeirPipelineOptions.RuntimeMode.AUTOMATIC));
    assertThat(weir.isBlockOnRun(), is(true));
  }

  @Test
  void badSparkMasterNamesTheOptionAndTheAcceptedValues() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Pipeline.create(Pipelines.options("--sparkMaster=locale[2]")).run());
    assertThat(e.getMessage(), containsString("--sparkMaster=locale[2]"));
    assertThat(e.getMessage(), containsString("local[N]"));
    assertThat(e.getMessage(), containsString("spark://HOST:PORT"));
  }

  @Test
  void badSparkConfNamesTheOption() {
    WeirPipelineOptions options = Pipelines.options("--sparkConf=shuffle=8");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WeirRunner.fromOptions(options));
    assertThat(e.getMessage(), containsString("--sparkConf entry 'shuffle=8'"));
    assertThat(e.getMessage(), containsString("spark.<setting>=<value>"));
  }

  @Test
  void badRuntimeModeNamesTheAcceptedValues() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PipelineOptionsFactory.fromArgs("--runtimeMode=FAST").as(WeirPipelineOptions.class));
    assertThat(e.getMessage(), containsString("FAST"));
    assertThat(e.getMessage(), containsString("AUTOMATIC"));
    assertThat(e.getMessage(), containsString("STREAMING"));
  }

  @Test
  void streamingIsRefusedAtRunWithTheReason() {
    Pipeline p = Pipelines.create();
    p.apply(GenerateSequence.from(0));
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::run);
    assertThat(e.getMessage(), containsString("batch pipelines only"));
    assertThat(e.getMessage(), containsString("is unbounded"));
  }

  @Test
  void batchModeOverUnboundedInputIsAnError() {
    Pipeline p = Pipelines.create("--runtimeMode=BATCH");
    p.apply(GenerateSequence.from(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, p::run);
    assertThat(e.getMessage(), containsString("--runtimeMode=BATCH"));
    assertThat(e.getMessage(), containsString("unbounded"));
  }

  @Test
  void userExceptionFailsThePipelineNamingTheStep() {
    Pipeline p = Pipelines.create();
    p.apply(Create.of(1, 2, 3))
        .apply(
            "Divide",
            MapElements.into(TypeDescriptors.integers()).via((Integer x) -> 6 / (x - 2)));
    Pipeline.PipelineExecutionException e = assertThrows(Pipeline.PipelineExecutionException.class, p::run);
    assertThat(e.getCause(), instanceOf(ArithmeticException.class));
    assertThat(e.getMessage(), containsString("Step 'Divide/Map/ParMultiDo(Anonymous)' failed"));
    assertThat(e.getMessage(), containsString("/ by zero"));
  }

  @Test
  void unsupportedTransformFailsAtRunNamingStepTransformAndWhy() {
    Pipeline p = Pipelines.create();
    p.apply(Create.of(KV.of("k", 1))).apply("Keep", ParDo.of(new StatefulFn()));
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::run);
    assertThat(e.getMessage(), containsString("Step 'Keep/ParMultiDo(Stateful)'"));
    assertThat(e.getMessage(), containsString("ParDo$MultiOutput"));
    assertThat(e.getMessage(), containsString("state or timers"));
  }

  @Test
  void waitUntilFinishWithATimeoutAndCancel() throws Exception {
    BlockingFn.release = new CountDownLatch(1);
    BlockingFn.started = new CountDownLatch(1);
    Pipeline p = Pipelines.create("--blockOnRun=false");
    p.apply(Create.of(1)).apply(ParDo.of(new BlockingFn()));
    PipelineResult result = p.run();
    assertThat(BlockingFn.started.await(60, TimeUnit.SECONDS), is(true));
    assertThat(result.getState(), equalTo(PipelineResult.State.RUNNING));
    assertThat(result.waitUntilFinish(Duration.millis(50)), nullValue());
    assertThat(result.cancel(), equalTo(PipelineResult.State.CANCELLED));
    BlockingFn.release.countDown();
    assertThat(result.waitUntilFinish(Duration.standardSeconds(60)), equalTo(PipelineResult.State.CANCELLED));
  }

  @Test
  void nonBlockingRunFinishesDone() {
    Pipeline p = Pipelines.create("--blockOnRun=false");
    PAssert.that(p.apply(Create.of("x"))).containsInAnyOrder("x");
    PipelineResult result = p.run();
    assertThat(result.waitUntilFinish(), equalTo(PipelineResult.State.DONE));
    assertThat(result.getState(), equalTo(PipelineResult.State.DONE));
  }

  static final class StatefulFn extends DoFn<KV<String, Integer>, Integer> {
    @StateId("v")
    private final StateSpec<ValueState<Integer>> v = StateSpecs.value();

    @ProcessElement
    public void process(@StateId("v") ValueState<Integer> v) {
      v.write(1);
    }

    @Override
    public String toString() {
      return "StatefulFn";
    }
  }

  static final class BlockingFn extends DoFn<Integer, Integer> {
    static CountDownLatch started;
    static CountDownLatch release;

    @ProcessElement
    public void process(@Element Integer x) throws InterruptedException {
      started.countDown();
      release.await(60, TimeUnit.SECONDS);
    }
  }
}
