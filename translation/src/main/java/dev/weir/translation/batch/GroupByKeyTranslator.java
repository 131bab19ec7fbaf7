package dev.weir.translation.batch;

import dev.weir.translation.Rdds;
import dev.weir.translation.SideInputData;
import dev.weir.translation.StepFailure;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.FlatMapGroupsFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import scala.Tuple3;

/**
 * {@code GroupByKey} in batch: one Spark shuffle on the Beam-encoded key (plus the window, for
 * non-merging WindowFns), each partition sorted by that key's hash ({@link HashSortedShuffle}),
 * then each group becomes one pane per window. Merging WindowFns
 * (sessions, custom) group by key alone and merge that key's windows in memory. Key equality is
 * Beam's: equal encodings under the (deterministic) key coder. With {@code --windowTriggers=ALLOW}
 * a non-default trigger runs per key in {@link TriggeredGroupAlsoByWindow} instead.
 */
public final class GroupByKeyTranslator implements TransformTranslator<GroupByKey<?, ?>> {
  @Override
  public @Nullable String whyNot(GroupByKey<?, ?> transform, TranslationContext context) {
    return context.policies().whyNot(context.input().getWindowingStrategy());
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(GroupByKey<?, ?> transform, TranslationContext context) {
    PCollection<KV<Object, Object>> input = context.input();
    PCollection<KV<Object, Iterable<Object>>> out = context.output();
    KvCoder<Object, Object> kvCoder = (KvCoder<Object, Object>) input.getCoder();
    WindowingStrategy<?, BoundedWindow> strategy =
        (WindowingStrategy<?, BoundedWindow>) input.getWindowingStrategy();
    if (honoursTrigger(strategy, context)) {
      context.putDataset(
          out,
          context
              .dataset(input)
              .groupByKey(new GroupingKey(kvCoder.getKeyCoder(), null), Encoders.BINARY())
              .flatMapGroups(
                  new TriggeredGroupAlsoByWindow(
                      context.stepName(), strategy, kvCoder.getValueCoder(), context.options(), context.policies()),
                  TranslationContext.encoder(out)));
      return;
    }
    boolean merging = !strategy.getWindowFn().isNonMerging();
    GroupingKey groupingKey =
        new GroupingKey(kvCoder.getKeyCoder(), merging ? null : strategy.getWindowFn().windowCoder());
    JavaRDD<Tuple3<Long, byte[], WindowedValue<Object>>> byKey =
        HashSortedShuffle.sorted(
            context.stepName(),
            (JavaRDD) context.rdd(input), groupingKey, (Coder) SideInputData.elementCoder(input), context.shufflePartitions());
    JavaRDD<WindowedValue<KV<Object, Iterable<Object>>>> grouped =
        Rdds.mapPartitions(
            (JavaRDD) byKey, new HashRunGroups(new GroupAlsoByWindow(context.stepName(), strategy, merging)), false);
    context.putRdd(out, grouped, false);
  }

  /**
   * A 64-bit hash of a grouping key's bytes. Sorting by it brings equal keys together and
   * compares eight bytes whatever the key's length ({@link HashSortedShuffle}). Keys whose hashes
   * collide share a run, which {@link HashRunGroups} (or the stateful ParDo) splits.
   */
  static long hash64(byte[] bytes) {
    long h = 0xcbf29ce484222325L; // FNV-1a 64
    for (byte b : bytes) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    // A final avalanche (MurmurHash3's fmix64), so that every bit of h depends on every byte.
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /**
   * Groups a partition sorted by grouping-key hash: each run of one hash is split by the key bytes
   * (one group, unless hashes collide), and each group goes through {@link GroupAlsoByWindow}.
   * Holds one run at a time.
   */
  static final class HashRunGroups
      implements FlatMapFunction<Iterator<Tuple3<Long, byte[], WindowedValue<KV<Object, Object>>>>, WindowedValue<KV<Object, Iterable<Object>>>> {
    private final GroupAlsoByWindow groupAlsoByWindow;

    HashRunGroups(GroupAlsoByWindow groupAlsoByWindow) {
      this.groupAlsoByWindow = groupAlsoByWindow;
    }

    @Override
    public Iterator<WindowedValue<KV<Object, Iterable<Object>>>> call(
        Iterator<Tuple3<Long, byte[], WindowedValue<KV<Object, Object>>>> sorted) {
      return new Iterator<>() {
        Tuple3<Long, byte[], WindowedValue<KV<Object, Object>>> pending = sorted.hasNext() ? sorted.next() : null;
        Iterator<WindowedValue<KV<Object, Iterable<Object>>>> panes = java.util.Collections.emptyIterator();

        @Override
        public boolean hasNext() {
          while (!panes.hasNext() && pending != null) {
            panes = nextRun();
          }
          return panes.hasNext();
        }

        @Override
        public WindowedValue<KV<Object, Iterable<Object>>> next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          return panes.next();
        }

        /** The panes of the next run of one hash. */
        private Iterator<WindowedValue<KV<Object, Iterable<Object>>>> nextRun() {
          long hash = pending._1();
          byte[] firstKey = pending._2();
          List<WindowedValue<KV<Object, Object>>> first = new ArrayList<>();
          Map<KeyedCombine.KeyBytes, List<WindowedValue<KV<Object, Object>>>> others = null;
          while (pending != null && pending._1() == hash) {
            if (Arrays.equals(pending._2(), firstKey)) {
              first.add(pending._3());
            } else {
              if (others == null) {
                others = new LinkedHashMap<>();
              }
              others.computeIfAbsent(new KeyedCombine.KeyBytes(pending._2()), k -> new ArrayList<>()).add(pending._3());
            }
            pending = sorted.hasNext() ? sorted.next() : null;
          }
          Iterator<WindowedValue<KV<Object, Iterable<Object>>>> run = groupAlsoByWindow.call(firstKey, first.iterator());
          if (others == null) {
            return run;
          }
          List<WindowedValue<KV<Object, Iterable<Object>>>> all = new ArrayList<>();
          run.forEachRemaining(all::add);
          others.forEach((key, elements) -> groupAlsoByWindow.call(key.bytes, elements.iterator()).forEachRemaining(all::add));
          return all.iterator();
        }
      };
    }
  }

  /**
   * Whether the user's trigger decides the panes: only with {@code --windowTriggers=ALLOW} and a
   * trigger other than the default one (whose single on-time pane the fast path gives too).
   */
  static boolean honoursTrigger(WindowingStrategy<?, ?> strategy, TranslationContext context) {
    return context.policies().windowTriggers() == TimePolicies.WindowTriggers.ALLOW
        && !(strategy.getTrigger() instanceof DefaultTrigger);
  }

  /** The Beam encoding of the key, followed by that of the window when it is not merged. */
  static final class GroupingKey implements MapFunction<WindowedValue<KV<Object, Object>>, byte[]> {
    private final Coder<Object> keyCoder;
    private final Coder<BoundedWindow> windowCoder;

    GroupingKey(Coder<Object> keyCoder, Coder<BoundedWindow> windowCoder) {
      this.keyCoder = keyCoder;
      this.windowCoder = windowCoder;
    }

    @Override
    public byte[] call(WindowedValue<KV<Object, Object>> value) throws IOException {
      return bytes(value.getValue().getKey(), value.getWindows().iterator().next());
    }

    /** The key's encoding, then the window's (when grouping by window). */
    byte[] bytes(Object key, BoundedWindow window) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      keyCoder.encode(key, bytes);
      if (windowCoder != null) {
        windowCoder.encode(window, bytes);
      }
      return bytes.toByteArray();
    }
  }

  /** Turns the elements of one key (and window) into a pane per (merged) window. */
  static final class GroupAlsoByWindow
      implements FlatMapGroupsFunction<byte[], WindowedValue<KV<Object, Object>>, WindowedValue<KV<Object, Iterable<Object>>>> {
    private final String stepName;
    private final WindowingStrategy<?, BoundedWindow> strategy;
    private final boolean merging;

    GroupAlsoByWindow(String stepName, WindowingStrategy<?, BoundedWindow> strategy, boolean merging) {
      this.stepName = stepName;
      this.strategy = strategy;
      this.merging = merging;
    }

    @Override
    public Iterator<WindowedValue<KV<Object, Iterable<Object>>>> call(
        byte[] groupKey, Iterator<WindowedValue<KV<Object, Object>>> elements) {
      Map<BoundedWindow, Pane> panes = new LinkedHashMap<>();
      List<WindowedValue<KV<Object, Object>>> all = new ArrayList<>();
      elements.forEachRemaining(all::add);
      Map<BoundedWindow, BoundedWindow> mergedInto = null;
      if (merging) {
        List<BoundedWindow> windows = new ArrayList<>();
        for (WindowedValue<KV<Object, Object>> e : all) {
          windows.add(e.getWindows().iterator().next());
        }
        try {
          mergedInto = WindowedGroups.mergeWindows(strategy.getWindowFn(), windows);
        } catch (Exception e) {
          throw new StepFailure(stepName, e);
        }
      }
      for (WindowedValue<KV<Object, Object>> e : all) {
        BoundedWindow window = e.getWindows().iterator().next();
        if (mergedInto != null) {
          window = mergedInto.get(window);
        }
        Pane pane = panes.computeIfAbsent(window, w -> new Pane(e.getValue().getKey()));
        pane.values.add(e.getValue().getValue());
        pane.timestamps.add(e.getTimestamp());
      }
      List<WindowedValue<KV<Object, Iterable<Object>>>> out = new ArrayList<>(panes.size());
      panes.forEach(
          (window, pane) ->
              out.add(
                  WindowedValues.of(
                      KV.of(pane.key, (Iterable<Object>) pane.values),
                      WindowedGroups.outputTimestamp(strategy.getTimestampCombiner(), window, pane.timestamps),
                      window,
                      PaneInfo.ON_TIME_AND_ONLY_FIRING)));
      return out.iterator();
    }
  }

  private static final class Pane {
    final Object key;
    final List<Object> values = new ArrayList<>();
    final List<Instant> timestamps = new ArrayList<>();

    Pane(Object key) {
      this.key = key;
    }
  }
}
