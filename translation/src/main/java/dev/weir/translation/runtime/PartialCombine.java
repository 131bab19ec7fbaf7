package dev.weir.translation.runtime;

import dev.weir.translation.StepFailure;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The map side of a {@code Combine.PerKey}: a partition's elements added into one Beam accumulator
 * per (key, window), held decoded in a hash map so that an update costs no encoding, and handed on
 * when the map holds {@code maxEntries} of them or the input ends. An element in several windows
 * is added to each without a windowed copy per window.
 *
 * <p>With a merging WindowFn ({@link Merging}), each key's windows are merged as they come, as the
 * WindowFn merges them, and the accumulators of merged windows combined: a key's session is one
 * accumulator, not one per element. The keyed side merges these windows again, with the other
 * partitions' and the earlier epochs', which gives the same windows only where merging is a union
 * of overlapping intervals, as for {@code Sessions}.
 *
 * <p>(key, window) are told apart by their structural values (Beam's {@code
 * Coder.structuralValue}: the objects themselves when the coder is consistent with equals, as for
 * longs, strings and interval windows, their encoding otherwise): equal structural values are
 * equal encodings, so the map groups as a shuffle by encoded key and window does.
 */
public final class PartialCombine implements Iterator<CombineBuffer> {
  /** How many accumulators a partition holds at most, unless told otherwise. */
  public static final int MAX_ENTRIES = 100_000;

  private final Iterator<? extends WindowedValue<KV<Object, Object>>> input;
  private final KeyWindowCombiner combiner;
  private final Coder<Object> keyCoder;
  private final Coder<BoundedWindow> windowCoder;
  private final int maxEntries;
  private final Map<Structural, CombineBuffer> buffers = new HashMap<>();
  private final @Nullable Merging merging;
  /** With {@link #merging}: each key's windows, merged, by the key's structural value. */
  private final Map<Object, List<CombineBuffer>> byKey = new HashMap<>();
  /** With {@link #merging}: buffers of expired windows, left unmerged. */
  private final List<CombineBuffer> expired = new ArrayList<>();
  private int mergingEntries;
  private Iterator<CombineBuffer> sending;

  /**
   * How the map side merges windows.
   *
   * @param inputWatermark the keyed side's input watermark as it receives these elements. A window
   *     that has expired at it (allowed lateness past) is not merged, so that the keyed side drops
   *     its elements as late, as it drops them when they come one by one, and counts them.
   */
  public record Merging(WindowFn<?, ?> windowFn, Instant inputWatermark, Duration allowedLateness) implements Serializable {
    boolean expired(BoundedWindow window) {
      return window.maxTimestamp().plus(allowedLateness).isBefore(inputWatermark);
    }
  }

  public PartialCombine(
      Iterator<? extends WindowedValue<KV<Object, Object>>> input,
      KeyWindowCombiner combiner,
      Coder<Object> keyCoder,
      Coder<BoundedWindow> windowCoder,
      int maxEntries) {
    this(input, combiner, keyCoder, windowCoder, maxEntries, null);
  }

  /** As above, merging windows on the way with {@code merging}, or not with null. */
  public PartialCombine(
      Iterator<? extends WindowedValue<KV<Object, Object>>> input,
      KeyWindowCombiner combiner,
      Coder<Object> keyCoder,
      Coder<BoundedWindow> windowCoder,
      int maxEntries,
      @Nullable Merging merging) {
    this.merging = merging;
    this.input = input;
    this.combiner = combiner;
    this.keyCoder = keyCoder;
    this.windowCoder = windowCoder;
    this.maxEntries = maxEntries;
  }

  private record Structural(Object key, Object window) {}

  @Override
  public boolean hasNext() {
    if (sending != null && sending.hasNext()) {
      return true;
    }
    buffers.clear();
    byKey.clear();
    expired.clear();
    mergingEntries = 0;
    sending = null;
    if (merging == null) {
      while (input.hasNext() && buffers.size() < maxEntries) {
        add(input.next());
      }
      sending = buffers.values().iterator();
    } else {
      while (input.hasNext() && mergingEntries < maxEntries) {
        addMerging(input.next());
      }
      List<CombineBuffer> all = new ArrayList<>(expired);
      for (List<CombineBuffer> windows : byKey.values()) {
        all.addAll(windows);
      }
      sending = all.iterator();
    }
    return sending.hasNext();
  }

  @Override
  public CombineBuffer next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return sending.next();
  }

  private void add(WindowedValue<KV<Object, Object>> element) {
    KV<Object, Object> kv = element.getValue();
    Object key = structural(keyCoder, kv.getKey());
    for (BoundedWindow window : element.getWindows()) {
      Structural at = new Structural(key, structural(windowCoder, window));
      CombineBuffer buffer = buffers.get(at);
      if (buffer == null) {
        buffer = combiner.zero();
        buffers.put(at, buffer);
      }
      combiner.reduce(buffer, kv, element.getTimestamp(), window);
    }
  }

  private void addMerging(WindowedValue<KV<Object, Object>> element) {
    KV<Object, Object> kv = element.getValue();
    Object key = structural(keyCoder, kv.getKey());
    for (BoundedWindow window : element.getWindows()) {
      CombineBuffer buffer = combiner.reduce(combiner.zero(), kv, element.getTimestamp(), window);
      mergingEntries++;
      if (merging.expired(window)) {
        expired.add(buffer);
        continue;
      }
      List<CombineBuffer> windows = byKey.computeIfAbsent(key, k -> new ArrayList<>());
      windows.add(buffer);
      if (windows.size() > 1) {
        mergingEntries -= windows.size();
        mergeWindows(windows);
        mergingEntries += windows.size();
      }
    }
  }

  /** Merges one key's windows as the WindowFn merges them, in place. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void mergeWindows(List<CombineBuffer> windows) {
    WindowFn<Object, BoundedWindow> fn = (WindowFn) merging.windowFn();
    List<Map.Entry<Collection<BoundedWindow>, BoundedWindow>> merges = new ArrayList<>();
    try {
      fn.mergeWindows(
          fn.new MergeContext() {
            @Override
            public Collection<BoundedWindow> windows() {
              List<BoundedWindow> current = new ArrayList<>(windows.size());
              for (CombineBuffer buffer : windows) {
                current.add(buffer.window);
              }
              return current;
            }

            @Override
            public void merge(Collection<BoundedWindow> toBeMerged, BoundedWindow mergeResult) {
              merges.add(Map.entry(toBeMerged, mergeResult));
            }
          });
    } catch (Exception e) {
      throw new StepFailure(combiner.stepName(), e);
    }
    for (Map.Entry<Collection<BoundedWindow>, BoundedWindow> merge : merges) {
      Set<BoundedWindow> toBeMerged = new HashSet<>(merge.getKey());
      List<CombineBuffer> group = new ArrayList<>();
      for (Iterator<CombineBuffer> it = windows.iterator(); it.hasNext(); ) {
        CombineBuffer buffer = it.next();
        if (toBeMerged.contains(buffer.window)) {
          group.add(buffer);
          it.remove();
        }
      }
      if (!group.isEmpty()) {
        windows.add(combiner.mergeWindows(group, merge.getValue()));
      }
    }
  }

  private <T> Object structural(Coder<T> coder, T value) {
    try {
      return coder.structuralValue(value);
    } catch (Exception e) {
      throw new StepFailure(combiner.stepName(), e);
    }
  }
}
