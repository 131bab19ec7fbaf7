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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import dev.weir.translation.TimePolicies;
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
    p.apply(Create.of(1)).apply("Mystery", new UnknownPrimitive());
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::run);
    assertThat(e.getMessage(), containsString("Step 'Mystery'"));
    assertThat(e.getMessage(), containsString("UnknownPrimitive"));
    assertThat(e.getMessage(), containsString("no batch translation for this primitive transform"));
  }

  @Test
  void timePoliciesDefaultToFailIgnoreIgnoreInBatch() {
    TimePolicies defaults = WeirRunner.policies(Pipelines.options(), false);
    assertThat(defaults.processingTimeTimers(), equalTo(TimePolicies.ProcessingTimeTimers.FAIL));
    assertThat(defaults.processingTimeEndOfInput(), equalTo(TimePolicies.ProcessingTimeEndOfInput.IGNORE));
    assertThat(defaults.windowTriggers(), equalTo(TimePolicies.WindowTriggers.IGNORE));
    TimePolicies chosen = WeirRunner.policies(Pipelines.options(
        "--processingTimeTimers=ALLOW", "--processingTimeEndOfInput=FIRE_AND_QUIESCE", "--windowTriggers=ALLOW"), false);
    assertThat(chosen.processingTimeTimers(), equalTo(TimePolicies.ProcessingTimeTimers.ALLOW));
    assertThat(chosen.processingTimeEndOfInput(), equalTo(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE));
    assertThat(chosen.windowTriggers(), equalTo(TimePolicies.WindowTriggers.ALLOW));
  }

  @Test
  void timePoliciesDefaultToAllowFireAllowInStreaming() {
    TimePolicies defaults = WeirRunner.policies(Pipelines.options(), true);
    assertThat(defaults.processingTimeTimers(), equalTo(TimePolicies.ProcessingTimeTimers.ALLOW));
    assertThat(defaults.processingTimeEndOfInput(), equalTo(TimePolicies.ProcessingTimeEndOfInput.FIRE_AND_QUIESCE));
    assertThat(defaults.windowTriggers(), equalTo(TimePolicies.WindowTriggers.ALLOW));
  }

  @Test
  void processingTimeTimerFailsByDefaultBeforeAnySparkJobNamingStepAndOption() {
    Pipeline p = Pipelines.create();
    p.apply(Create.of(KV.of("k", 1))).apply("Remind", ParDo.of(new ProcessingTimeFn()));
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::run);
    assertThat(e.getMessage(), equalTo(
        "Step 'Remind/ParMultiDo(ProcessingTime)' (org.apache.beam.sdk.transforms.ParDo$MultiOutput) cannot run "
            + "on WeirRunner: its DoFn sets the processing-time timer 'remind', and processing time has no "
            + "meaning in batch (--processingTimeTimers=FAIL, the batch default); set "
            + "--processingTimeTimers=ALLOW to run it against a processing clock, or "
            + "--processingTimeTimers=IGNORE to drop it"));
  }

  @Test
  void statefulPipelineRunsWithTheProcessingTimePolicyAllowed() {
    Pipeline p = Pipelines.create("--processingTimeTimers=ALLOW", "--processingTimeEndOfInput=FIRE_AND_QUIESCE");
    PAssert.that(p.apply(Create.of(KV.of("k", 1))).apply(ParDo.of(new ProcessingTimeFn())))
        .containsInAnyOrder("reminded k");
    assertThat(p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
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
    assertThat(result.waitUntilFinish(Duration.millis(50)), equalTo(PipelineResult.State.RUNNING));
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

  /** Weir's sessions cache the Datasets it persists as rows (its Datasets are opaque bytes), not as Spark's columns. */
  @Test
  void sessionsCacheWithTheRowCacheSerializer() {
    assertThat(
        SparkSessions.getOrCreate(Pipelines.options()).conf().get("spark.sql.cache.serializer"),
        equalTo(dev.weir.translation.RowCacheSerializer.class.getName()));
  }

  /**
   * When a task fails, Spark fails the job at once and kills the job's other tasks, which stop
   * a little later. A failed run must not return before they have, or their DoFns' teardowns
   * run into whatever the caller does next. The killed task's teardown takes 2 s, longer than
   * the rest of a failed run, so a run that does not wait returns before it. Spark's status
   * store, which also counts running tasks, is filled asynchronously: here it is held back for
   * 2 s at the job's start, so that it has not seen the slow task start when the job fails.
   */
  @Test
  void failedRunReturnsOnlyOnceTheKilledTasksHaveTornDownTheirDoFns() {
    WeirPipelineOptions options = Pipelines.options();
    SparkContext sc = SparkSessions.getOrCreate(options).sparkContext();
    AtomicBoolean holdBack = new AtomicBoolean(true);
    SparkListener lag =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart jobStart) {
            if (holdBack.compareAndSet(true, false)) {
              spin(2_000);
            }
          }
        };
    // The status queue delivers each event to its listeners in turn, the store first: this
    // one delays every event after the job's start.
    sc.listenerBus().addToStatusQueue(lag);
    FailsBesideASlowTask.setUp = new AtomicInteger();
    FailsBesideASlowTask.tornDown = new AtomicInteger();
    FailsBesideASlowTask.slowStarted = new CountDownLatch(1);
    try {
      Pipeline p = Pipelines.create();
      p.apply(Create.of(1, 2)).apply("FailBesideSlow", ParDo.of(new FailsBesideASlowTask()));
      Pipeline.PipelineExecutionException e = assertThrows(Pipeline.PipelineExecutionException.class, p::run);
      assertThat(e.getMessage(), containsString("fails while element 2 runs"));
      assertThat("a bundle per element", FailsBesideASlowTask.setUp.get(), equalTo(2));
      assertThat("DoFns torn down when the run returned", FailsBesideASlowTask.tornDown.get(), equalTo(2));
    } finally {
      sc.listenerBus().removeListener(lag);
    }
  }

  /** Waits without sleeping, so that an interrupt from Spark's task kill does not cut it short. */
  private static void spin(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** Element 1 fails once element 2 runs; element 2 runs until its task is killed. */
  static final class FailsBesideASlowTask extends DoFn<Integer, Integer> {
    static AtomicInteger setUp;
    static AtomicInteger tornDown;
    static CountDownLatch slowStarted;

    @Setup
    public void setUp() {
      setUp.incrementAndGet();
    }

    @ProcessElement
    public void process(@Element Integer x) throws InterruptedException {
      if (x == 1) {
        slowStarted.await(30, TimeUnit.SECONDS);
        throw new IllegalStateException("fails while element 2 runs");
      }
      slowStarted.countDown();
      Thread.sleep(30_000);
    }

    @Teardown
    public void tearDown() {
      spin(2_000);
      tornDown.incrementAndGet();
    }
  }

  /** A primitive no runner knows: its output is produced by nothing but itself. */
  static final class UnknownPrimitive extends PTransform<PCollection<Integer>, PCollection<Integer>> {
    @Override
    public PCollection<Integer> expand(PCollection<Integer> input) {
      return PCollection.createPrimitiveOutputInternal(
          input.getPipeline(), input.getWindowingStrategy(), input.isBounded(), input.getCoder());
    }
  }

  static final class ProcessingTimeFn extends DoFn<KV<String, Integer>, String> {
    @StateId("key")
    private final StateSpec<ValueState<String>> key = StateSpecs.value();

    @TimerId("remind")
    private final TimerSpec remind = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    @ProcessElement
    public void process(@Element KV<String, Integer> e, @StateId("key") ValueState<String> key, @TimerId("remind") Timer remind) {
      key.write(e.getKey());
      remind.offset(Duration.standardHours(1)).setRelative();
    }

    @OnTimer("remind")
    public void onRemind(@StateId("key") ValueState<String> key, OutputReceiver<String> out) {
      out.output("reminded " + key.read());
    }

    @Override
    public String toString() {
      return "ProcessingTime";
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
