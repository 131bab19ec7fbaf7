package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;

import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.DoFnSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFnSchemaInformation;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import scala.Tuple3;

/**
 * Batch GroupByKey and stateful ParDo sort a partition by the hash of each key's bytes only; keys
 * whose hashes collide then share a run, interleaved. These feed such runs by hand (two keys under
 * one hash, in the order a sort by hash may leave them) and check that the keys stay apart.
 */
class HashCollisionTest {
  private static final long COLLIDING = 7L;

  private static Tuple3<Long, byte[], WindowedValue<KV<Object, Object>>> element(long hash, String key, int value)
      throws Exception {
    GroupByKeyTranslator.GroupingKey bytes = new GroupByKeyTranslator.GroupingKey(coder(StringUtf8Coder.of()), null);
    return new Tuple3<>(
        hash,
        bytes.bytes(key, GlobalWindow.INSTANCE),
        WindowedValues.of(KV.of(key, value), new Instant(value), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING));
  }

  @SuppressWarnings("unchecked")
  private static <T> Coder<Object> coder(Coder<T> coder) {
    return (Coder<Object>) (Coder<?>) coder;
  }

  private static List<Tuple3<Long, byte[], WindowedValue<KV<Object, Object>>>> interleaved() throws Exception {
    return List.of(
        element(COLLIDING, "a", 1), element(COLLIDING, "b", 2), element(COLLIDING, "a", 3), element(9L, "c", 4));
  }

  @Test
  @SuppressWarnings("unchecked")
  void groupByKeyKeepsCollidingKeysApart() throws Exception {
    WindowingStrategy<?, BoundedWindow> strategy = (WindowingStrategy<?, BoundedWindow>) (WindowingStrategy<?, ?>) WindowingStrategy.globalDefault();
    GroupByKeyTranslator.HashRunGroups groups =
        new GroupByKeyTranslator.HashRunGroups(new GroupByKeyTranslator.GroupAlsoByWindow("GroupByKey", strategy, false));
    List<String> panes = new ArrayList<>();
    groups.call(interleaved().iterator()).forEachRemaining(pane -> panes.add(pane.getValue().getKey() + "=" + pane.getValue().getValue()));
    assertThat(panes, containsInAnyOrder("a=[1, 3]", "b=[2]", "c=[4]"));
  }

  /** Counts each key's elements in state, emits the count with each, and the total at the end of input. */
  static final class CountPerKey extends DoFn<KV<String, Integer>, String> {
    @StateId("count")
    private final StateSpec<ValueState<Integer>> count = StateSpecs.value(VarIntCoder.of());

    @TimerId("end")
    private final TimerSpec end = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<String, Integer> element,
        @StateId("count") ValueState<Integer> count,
        @TimerId("end") Timer endTimer,
        OutputReceiver<String> out) {
      int seen = count.read() == null ? 1 : count.read() + 1;
      count.write(seen);
      endTimer.set(GlobalWindow.INSTANCE.maxTimestamp());
      out.output(element.getKey() + seen);
    }

    @OnTimer("end")
    public void onEnd(@StateId("count") ValueState<Integer> count, @Key String key, OutputReceiver<String> out) {
      out.output(key + " total " + count.read());
    }
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void statefulParDoKeepsCollidingKeysApart() throws Exception {
    TupleTag<String> main = new TupleTag<>("main");
    DoFnSpec spec =
        new DoFnSpec(
            "CountPerKey",
            new CountPerKey(),
            new SerializablePipelineOptions(PipelineOptionsFactory.create()),
            (Coder) KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()),
            Map.of(main, StringUtf8Coder.of()),
            List.of(main),
            WindowingStrategy.globalDefault(),
            DoFnSchemaInformation.create(),
            Map.of(),
            List.of(),
            null,
            null);
    StatefulDoFnFunction function = new StatefulDoFnFunction(spec, TimePolicies.batchDefaults());
    List<String> outputs = new ArrayList<>();
    Iterator<WindowedValue<Object>> out = function.call((Iterator) interleaved().iterator());
    out.forEachRemaining(value -> outputs.add((String) value.getValue()));
    assertThat(outputs, contains("a1", "b1", "a2", "a total 2", "b total 1", "c1", "c total 1"));
  }
}
