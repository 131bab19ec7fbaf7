package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.startsWith;

import dev.weir.translation.Overrides;
import dev.weir.translation.PipelineTranslator;
import dev.weir.translation.TestSpark;
import dev.weir.translation.TimePolicies;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which unbounded sources an epoch reads, and which keyed steps it runs, within its leaves job:
 * those followed by one chain of steps that only derive their outputs from their inputs'
 * elements. A source that a grouping, a side input or a DoFn waiting on one reads needs its own
 * job first, whose outcome (records, watermark) those steps act on in the same epoch; so does one
 * whose data fans out, and so does a grouping that another grouping reads.
 */
class EpochLoopTest {

  private static Set<String> withLeaves(Pipeline p) {
    Overrides.apply(p);
    return EpochLoop.withLeaves(PipelineTranslator.check(p, TimePolicies.streamingDefaults(), StreamingTranslators.INSTANCE).steps());
  }

  private static PCollection<Long> windowed(Pipeline p, String name) {
    return p.apply(name, GenerateSequence.from(0)).apply(name + " windows", Window.into(FixedWindows.of(Duration.standardSeconds(10))));
  }

  @Test
  void sourcesFollowedByOneChainOfStatelessStepsAreReadWithTheLeaves() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Long> numbers = windowed(p, "Numbers");
    PCollection<Long> more = windowed(p, "More");
    PCollectionList.of(numbers).and(more)
        .apply("Both", Flatten.pCollections())
        .apply("Double", MapElements.into(TypeDescriptors.longs()).via(x -> 2 * x));
    assertThat(withLeaves(p), containsInAnyOrder(startsWith("Numbers/"), startsWith("More/")));
  }

  /**
   * Data that fans out is cached once; a job that first computes that cache may compute it in
   * tasks of several branches (on several executors, reading a split twice), so the source is read
   * in a job of its own that fills the cache.
   */
  @Test
  void aSourceWhoseDataFansOutIsReadInAJobOfItsOwn() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Long> numbers = windowed(p, "Numbers");
    PCollection<Long> doubled = numbers.apply("Double", MapElements.into(TypeDescriptors.longs()).via(x -> 2 * x));
    PCollectionList.of(numbers).and(doubled).apply("Both", Flatten.pCollections());
    assertThat(withLeaves(p), empty());
  }

  /**
   * The source's records go to a grouping, which acts on the read's watermark in the same epoch:
   * the source is read in a job of its own. The grouping, followed by one stateless step and
   * nothing else, runs within the leaves job.
   */
  @Test
  void aSourceThatAGroupingReadsIsReadInAJobOfItsOwnAndTheGroupingRunsWithTheLeaves() {
    Pipeline p = TestSpark.pipeline();
    keyed(windowed(p, "Numbers"))
        .apply("Group", GroupByKey.create())
        .apply("Keys", MapElements.into(TypeDescriptors.longs()).via(kv -> kv.getKey()));
    assertThat(withLeaves(p), containsInAnyOrder(startsWith("Group")));
  }

  /** A grouping whose output another grouping reads runs in a job of its own; the last one does not. */
  @Test
  void aGroupingThatAnotherGroupingReadsRunsInAJobOfItsOwn() {
    Pipeline p = TestSpark.pipeline();
    keyed(
            keyed(windowed(p, "Numbers"))
                .apply("Group", GroupByKey.create())
                .apply("Keys", MapElements.into(TypeDescriptors.longs()).via(kv -> kv.getKey())))
        .apply("Group again", GroupByKey.create());
    assertThat(withLeaves(p), containsInAnyOrder(startsWith("Group again")));
  }

  private static PCollection<org.apache.beam.sdk.values.KV<Long, Long>> keyed(PCollection<Long> numbers) {
    return numbers
        .apply(WithKeys.of(x -> x % 3))
        .setCoder(org.apache.beam.sdk.coders.KvCoder.of(
            org.apache.beam.sdk.coders.VarLongCoder.of(), org.apache.beam.sdk.coders.VarLongCoder.of()));
  }

  @Test
  void sourcesOfASideInputAndOfTheDoFnThatWaitsOnItAreReadInJobsOfTheirOwn() {
    Pipeline p = TestSpark.pipeline();
    PCollectionView<Iterable<Long>> side = windowed(p, "Side").apply("View", View.asIterable());
    windowed(p, "Main").apply("Join", ParDo.of(new Echo()).withSideInputs(side));
    assertThat(withLeaves(p), empty());
  }

  /**
   * A stateful DoFn followed by one stateless step runs within the leaves job; one that reads a
   * side input first sets aside what waits for it, in a job of its own.
   */
  @Test
  void aStatefulDoFnRunsWithTheLeavesUnlessItReadsASideInput() {
    Pipeline p = TestSpark.pipeline();
    PCollectionView<Iterable<Long>> side = windowed(p, "Side").apply("View", View.asIterable());
    keyed(windowed(p, "Numbers"))
        .apply("Number", ParDo.of(new Numbering()))
        .apply("Values", MapElements.into(TypeDescriptors.longs()).via(kv -> kv.getValue()));
    keyed(windowed(p, "More"))
        .apply("Number with side input", ParDo.of(new Numbering()).withSideInputs(side))
        .apply("More values", MapElements.into(TypeDescriptors.longs()).via(kv -> kv.getValue()));
    assertThat(withLeaves(p), containsInAnyOrder(startsWith("Number/")));
  }

  /** Numbers each key's elements in the order it sees them. */
  private static final class Numbering extends DoFn<org.apache.beam.sdk.values.KV<Long, Long>, org.apache.beam.sdk.values.KV<Long, Long>> {
    @StateId("seen")
    private final org.apache.beam.sdk.state.StateSpec<org.apache.beam.sdk.state.ValueState<Long>> seen =
        org.apache.beam.sdk.state.StateSpecs.value(org.apache.beam.sdk.coders.VarLongCoder.of());

    @ProcessElement
    public void process(
        @Element org.apache.beam.sdk.values.KV<Long, Long> element,
        @StateId("seen") org.apache.beam.sdk.state.ValueState<Long> seen,
        OutputReceiver<org.apache.beam.sdk.values.KV<Long, Long>> out) {
      Long before = seen.read();
      long n = before == null ? 1 : before + 1;
      seen.write(n);
      out.output(org.apache.beam.sdk.values.KV.of(element.getValue(), n));
    }
  }

  private static final class Echo extends DoFn<Long, Long> {
    @ProcessElement
    public void process(ProcessContext c) {
      c.output(c.element());
    }
  }
}
