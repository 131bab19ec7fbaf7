package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weir.translation.StepFailure;
import dev.weir.translation.TestSpark;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class ParDoTranslatorTest implements java.io.Serializable {
  private static final TupleTag<Integer> EVEN = new TupleTag<>() {};
  private static final TupleTag<String> ODD = new TupleTag<>() {};

  @Test
  void multipleOutputsWithDifferentCoders() {
    Pipeline p = TestSpark.pipeline();
    PCollectionTuple out =
        p.apply(Create.of(1, 2, 3, 4, 5))
            .apply(ParDo.of(new SplitFn()).withOutputTags(EVEN, TupleTagList.of(ODD)));
    PAssert.that(out.get(EVEN)).containsInAnyOrder(2, 4);
    PAssert.that(out.get(ODD)).containsInAnyOrder("1", "3", "5");
    TestSpark.run(p);
  }

  /**
   * Three DoFns read one PCollection in one pass: one with two outputs, one with one, and one that
   * outputs only in {@code @FinishBundle} (how many elements its bundle saw); each gets every
   * element and keeps its own outputs.
   */
  @Test
  void readersSharingOnePassKeepTheirOutputsApart() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> numbers = p.apply(Create.of(1, 2, 3, 4, 5));
    PCollectionTuple split = numbers.apply("Split", ParDo.of(new SplitFn()).withOutputTags(EVEN, TupleTagList.of(ODD)));
    PCollection<Integer> tenfold = numbers.apply("Tenfold", ParDo.of(new DoFn<Integer, Integer>() {
      @ProcessElement
      public void process(@Element Integer x, OutputReceiver<Integer> out) {
        out.output(10 * x);
      }
    }));
    PCollection<Integer> seen = numbers.apply("Seen", ParDo.of(new DoFn<Integer, Integer>() {
      private transient int count;

      @StartBundle
      public void start() {
        count = 0;
      }

      @ProcessElement
      public void process(@Element Integer x) {
        count++;
      }

      @FinishBundle
      public void finish(FinishBundleContext c) {
        c.output(count, org.apache.beam.sdk.transforms.windowing.GlobalWindow.INSTANCE.maxTimestamp(),
            org.apache.beam.sdk.transforms.windowing.GlobalWindow.INSTANCE);
      }
    }));
    PAssert.that(split.get(EVEN)).containsInAnyOrder(2, 4);
    PAssert.that(split.get(ODD)).containsInAnyOrder("1", "3", "5");
    PAssert.that(tenfold).containsInAnyOrder(10, 20, 30, 40, 50);
    PAssert.that(seen.apply(org.apache.beam.sdk.transforms.Sum.integersGlobally())).containsInAnyOrder(5);
    TestSpark.run(p);
  }

  @Test
  void everySideInputKind() {
    Pipeline p = TestSpark.pipeline();
    PCollectionView<Integer> singleton = p.apply("One", Create.of(10)).apply(View.asSingleton());
    PCollectionView<List<Integer>> list = p.apply("Two", Create.of(1, 2)).apply(View.asList());
    PCollectionView<Iterable<Integer>> iterable = p.apply("Three", Create.of(3, 4)).apply(View.asIterable());
    PCollectionView<Map<String, Integer>> map =
        p.apply("Four", Create.of(KV.of("a", 1), KV.of("b", 2))).apply(View.asMap());
    PCollectionView<Map<String, Iterable<Integer>>> multimap =
        p.apply("Five", Create.of(KV.of("a", 1), KV.of("a", 5))).apply(View.asMultimap());
    PCollection<Integer> out =
        p.apply("Main", Create.of(0))
            .apply(
                ParDo.of(
                        new DoFn<Integer, Integer>() {
                          @ProcessElement
                          public void process(ProcessContext c) {
                            int sum = c.sideInput(singleton);
                            for (int x : c.sideInput(list)) {
                              sum += x;
                            }
                            for (int x : c.sideInput(iterable)) {
                              sum += x;
                            }
                            sum += c.sideInput(map).get("b");
                            for (int x : c.sideInput(multimap).get("a")) {
                              sum += x;
                            }
                            c.output(sum);
                          }
                        })
                    .withSideInputs(singleton, list, iterable, map, multimap));
    PAssert.thatSingleton(out).isEqualTo(10 + 1 + 2 + 3 + 4 + 2 + 1 + 5);
    TestSpark.run(p);
  }

  /** Main-input elements of two windows in turn, so that a bundle reads both windows' values. */
  @Test
  void windowedSideInputsAreMappedToTheMainInputWindow() {
    Pipeline p = TestSpark.pipeline();
    List<TimestampedValue<Integer>> main = new java.util.ArrayList<>();
    List<Integer> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      boolean first = i % 2 == 0;
      main.add(TimestampedValue.of(i, new Instant(first ? 1 : 12)));
      expected.add(i + (first ? 100 : 200));
    }
    PCollectionView<Integer> perWindow =
        p.apply(
                "Side",
                Create.timestamped(TimestampedValue.of(100, new Instant(5)), TimestampedValue.of(200, new Instant(15))))
            .apply("SideWindows", Window.into(FixedWindows.of(Duration.millis(10))))
            .apply(View.asSingleton());
    PCollection<Integer> out =
        p.apply(
                "Main",
                Create.timestamped(main))
            .apply("MainWindows", Window.into(FixedWindows.of(Duration.millis(10))))
            .apply(
                ParDo.of(
                        new DoFn<Integer, Integer>() {
                          @ProcessElement
                          public void process(ProcessContext c) {
                            c.output(c.element() + c.sideInput(perWindow));
                          }
                        })
                    .withSideInputs(perWindow));
    PAssert.that(out).containsInAnyOrder(expected);
    TestSpark.run(p);
  }

  @Test
  void lifecycleIsCompleteForEveryBundleAndFinalizersRun() {
    LifecycleFn.reset();
    Pipeline p = TestSpark.pipeline();
    p.apply(Create.of(1, 2, 3, 4, 5, 6)).apply(ParDo.of(new LifecycleFn()));
    TestSpark.run(p);
    assertThat(LifecycleFn.SETUP.get(), equalTo(LifecycleFn.TEARDOWN.get()));
    assertThat(LifecycleFn.START.get(), equalTo(LifecycleFn.FINISH.get()));
    assertThat(LifecycleFn.START.get(), equalTo(LifecycleFn.SETUP.get()));
    assertThat(LifecycleFn.FINALIZED.get(), greaterThan(0));
    assertThat(LifecycleFn.FINALIZED.get(), lessThanOrEqualTo(LifecycleFn.FINISH.get()));
    assertThat(LifecycleFn.ELEMENTS.get(), equalTo(6));
  }

  @Test
  void userFailureCarriesTheStepNameAndTheUserException() {
    LifecycleFn.reset();
    Pipeline p = TestSpark.pipeline();
    p.apply(Create.of(1, 2, 3)).apply("Explode", ParDo.of(new FailingFn()));
    Exception e = assertThrows(Exception.class, () -> TestSpark.run(p));
    StepFailure failure = StepFailure.find(e);
    assertThat(failure.stepName(), equalTo("Explode/ParMultiDo(Failing)"));
    Throwable cause = failure.getCause();
    while (!(cause instanceof IllegalStateException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertThat(cause, instanceOf(IllegalStateException.class));
    assertThat(cause.getMessage(), containsString("boom on 2"));
    assertThat(LifecycleFn.TEARDOWN.get(), equalTo(LifecycleFn.SETUP.get()));
  }

  static final class SplitFn extends DoFn<Integer, Integer> {
    @ProcessElement
    public void process(@Element Integer x, MultiOutputReceiver out) {
      if (x % 2 == 0) {
        out.get(EVEN).output(x);
      } else {
        out.get(ODD).output(String.valueOf(x));
      }
    }
  }

  static class LifecycleFn extends DoFn<Integer, Integer> {
    static final AtomicInteger SETUP = new AtomicInteger();
    static final AtomicInteger START = new AtomicInteger();
    static final AtomicInteger ELEMENTS = new AtomicInteger();
    static final AtomicInteger FINISH = new AtomicInteger();
    static final AtomicInteger TEARDOWN = new AtomicInteger();
    static final AtomicInteger FINALIZED = new AtomicInteger();

    static void reset() {
      for (AtomicInteger i : List.of(SETUP, START, ELEMENTS, FINISH, TEARDOWN, FINALIZED)) {
        i.set(0);
      }
    }

    @Setup
    public void setup() {
      SETUP.incrementAndGet();
    }

    private transient boolean finalizerRegistered;

    @StartBundle
    public void start() {
      START.incrementAndGet();
      finalizerRegistered = false;
    }

    @ProcessElement
    public void process(@Element Integer x, BundleFinalizer finalizer, OutputReceiver<Integer> out) {
      ELEMENTS.incrementAndGet();
      if (!finalizerRegistered) {
        finalizerRegistered = true;
        finalizer.afterBundleCommit(Instant.now().plus(Duration.standardMinutes(1)), FINALIZED::incrementAndGet);
      }
      out.output(x);
    }

    @FinishBundle
    public void finish(FinishBundleContext c) {
      FINISH.incrementAndGet();
    }

    @Teardown
    public void teardown() {
      TEARDOWN.incrementAndGet();
    }
  }

  static final class FailingFn extends LifecycleFn {
    @Override
    @ProcessElement
    public void process(@Element Integer x, BundleFinalizer finalizer, OutputReceiver<Integer> out) {
      if (x == 2) {
        throw new IllegalStateException("boom on 2");
      }
      out.output(x);
    }

    @Override
    public String toString() {
      return "Failing";
    }
  }
}
