package dev.weir.translation;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.translation.batch.BatchTranslators;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SimpleFunction;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.junit.jupiter.api.Test;

class PipelineTranslatorTest implements java.io.Serializable {

  @Test
  void unsupportedStepFailsBeforeAnySparkJobNamingStepTransformAndReason() {
    Pipeline p = TestSpark.pipeline();
    p.apply(Create.of(1, 2)).apply("Mystery", new UnknownPrimitive());
    TestSpark.drainJobs();
    UnsupportedOperationException e =
        assertThrows(UnsupportedOperationException.class, () -> TestSpark.run(p));
    assertThat(e.getMessage(), containsString("Step 'Mystery'"));
    assertThat(e.getMessage(), containsString("PipelineTranslatorTest$UnknownPrimitive"));
    assertThat(e.getMessage(), containsString("no batch translation for this primitive transform"));
    assertThat(TestSpark.drainJobs(), hasSize(0));
  }

  @Test
  void consecutiveParDosRunInOneStageAndJobsAreNamedAfterSteps() {
    Pipeline p = TestSpark.pipeline();
    p.apply(Create.of(1, 2, 3))
        .apply("PlusOne", MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x + 1))
        .apply("Twice", MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x * 2))
        .apply("Last", MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x - 1));
    TestSpark.drainJobs();
    TestSpark.run(p);
    List<SparkListenerJobStart> jobs = TestSpark.drainJobs();
    assertThat(jobs, hasSize(1));
    assertThat(jobs.get(0).stageInfos().size(), is(1));
    assertThat(
        jobs.get(0).properties().getProperty("spark.job.description"),
        containsString("Last/Map/ParMultiDo(Anonymous)"));
  }

  @Test
  void aPCollectionWithSeveralConsumersIsComputedOnce() {
    CountingFn.CALLS.set(0);
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> shared = p.apply(Create.of(1, 2, 3, 4)).apply("Count", ParDo.of(new CountingFn()));
    PAssert.that(shared.apply("A", MapElements.via(new Negate()))).containsInAnyOrder(-1, -2, -3, -4);
    PAssert.that(shared.apply("B", MapElements.via(new Negate()))).containsInAnyOrder(-1, -2, -3, -4);
    TestSpark.run(p);
    assertThat(CountingFn.CALLS.get(), equalTo(4));
  }

  /**
   * Reads, stateless ParDos, one with several outputs, a Combine, a GroupByKey
   * and a Flatten run Beam's code alone: their jobs run on RDDs, with no Spark SQL query to plan.
   */
  @Test
  void beamStepsAloneRunWithoutPlanningASparkSqlQuery() {
    Collected.VALUES.clear();
    Pipeline p = TestSpark.pipeline();
    PCollection<KV<String, Integer>> input =
        p.apply(Create.of(KV.of("a", 1), KV.of("a", 2), KV.of("b", 3)));
    PCollection<KV<String, Integer>> sums = input.apply("Sum", org.apache.beam.sdk.transforms.Sum.integersPerKey());
    PCollection<KV<String, Iterable<Integer>>> groups =
        input.apply("Group", org.apache.beam.sdk.transforms.GroupByKey.create());
    org.apache.beam.sdk.values.TupleTag<String> main = new org.apache.beam.sdk.values.TupleTag<>() {};
    org.apache.beam.sdk.values.TupleTag<String> other = new org.apache.beam.sdk.values.TupleTag<>() {};
    org.apache.beam.sdk.values.PCollectionTuple both = groups.apply("Both", ParDo.of(new DoFn<KV<String, Iterable<Integer>>, String>() {
      @ProcessElement
      public void process(ProcessContext c) {
        int n = 0;
        for (Integer ignored : c.element().getValue()) {
          n++;
        }
        c.output("count " + c.element().getKey() + "=" + n);
        c.output(other, "key " + c.element().getKey());
      }
    }).withOutputTags(main, org.apache.beam.sdk.values.TupleTagList.of(other)));
    PCollection<String> formatted = sums.apply("Format", MapElements.into(TypeDescriptors.strings())
        .via((KV<String, Integer> kv) -> "sum " + kv.getKey() + "=" + kv.getValue()));
    org.apache.beam.sdk.values.PCollectionList.of(formatted).and(both.get(main)).and(both.get(other))
        .apply(org.apache.beam.sdk.transforms.Flatten.pCollections())
        .apply("Collect", ParDo.of(new Collected()));
    TestSpark.drainPlans();
    TestSpark.run(p);
    assertThat(TestSpark.drainPlans(), hasSize(0));
    assertThat(Collected.VALUES, org.hamcrest.Matchers.containsInAnyOrder(
        "sum a=3", "sum b=3", "count a=2", "count b=1", "key a", "key b"));
  }

  /** Keeps what it reads (on embedded Spark, in this JVM). */
  static final class Collected extends DoFn<String, Void> {
    static final java.util.Queue<String> VALUES = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @ProcessElement
    public void process(@Element String value) {
      VALUES.add(value);
    }
  }

  @Test
  void explainListsEveryStepWithItsTranslator() {
    Pipeline p = TestSpark.pipeline();
    p.apply(Create.of(KV.of("a", 1))).apply("Sum", org.apache.beam.sdk.transforms.Sum.integersPerKey());
    Overrides.apply(p);
    String plan = PipelineTranslator.check(p, TimePolicies.batchDefaults(), BatchTranslators.INSTANCE).explain();
    assertThat(List.of(plan.split("\n")), hasItem("Sum -> CombinePerKeyTranslator"));
    assertThat(plan, containsString("Create.Values/Impulse -> ImpulseTranslator"));
  }

  /**
   * A PCollection read by stateless ParDos alone is read by them in one pass, not persisted; one
   * that a GroupByKey or a ParDo with a side input reads too is persisted for its readers.
   */
  @Test
  void stepsThatEachMapAnElementShareOnePassOverTheirInput() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> shared = p.apply("Shared", Create.of(1, 2));
    shared.apply("A", MapElements.via(new Negate()));
    shared.apply("B", MapElements.via(new Negate()));
    PCollection<KV<Integer, Integer>> keyed =
        p.apply("Keyed", Create.of(KV.of(1, 1)));
    keyed.apply("C", MapElements.via(new SimpleFunction<KV<Integer, Integer>, Integer>() {
      @Override
      public Integer apply(KV<Integer, Integer> kv) {
        return kv.getKey();
      }
    }));
    keyed.apply("Group", org.apache.beam.sdk.transforms.GroupByKey.create());
    PCollection<Integer> withSide = p.apply("WithSide", Create.of(3));
    org.apache.beam.sdk.values.PCollectionView<Integer> view =
        p.apply("Side", Create.of(4)).apply(org.apache.beam.sdk.transforms.View.asSingleton());
    withSide.apply("D", MapElements.via(new Negate()));
    withSide.apply("E", ParDo.of(new DoFn<Integer, Integer>() {
      @ProcessElement
      public void process(ProcessContext c) {
        c.output(c.element() + c.sideInput(view));
      }
    }).withSideInputs(view));
    Overrides.apply(p);
    List<String> plan = List.of(
        PipelineTranslator.check(p, TimePolicies.batchDefaults(), BatchTranslators.INSTANCE).explain().split("\n"));
    List<String> passes = plan.stream().filter(line -> line.startsWith("one pass over ")).toList();
    assertThat(passes, equalTo(List.of(
        "one pass over " + shared.getName() + ": A/Map/ParMultiDo(Anonymous), B/Map/ParMultiDo(Anonymous)")));
  }

  /** A primitive no runner knows. */
  static final class UnknownPrimitive
      extends org.apache.beam.sdk.transforms.PTransform<PCollection<Integer>, PCollection<Integer>> {
    @Override
    public PCollection<Integer> expand(PCollection<Integer> input) {
      return PCollection.createPrimitiveOutputInternal(
          input.getPipeline(), input.getWindowingStrategy(), input.isBounded(), input.getCoder());
    }
  }

  static final class CountingFn extends DoFn<Integer, Integer> {
    static final AtomicInteger CALLS = new AtomicInteger();

    @ProcessElement
    public void process(@Element Integer x, OutputReceiver<Integer> out) {
      CALLS.incrementAndGet();
      out.output(x);
    }
  }

  static final class Negate extends SimpleFunction<Integer, Integer> {
    @Override
    public Integer apply(Integer x) {
      return -x;
    }
  }
}
