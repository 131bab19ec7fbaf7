package dev.weir.translation.runtime;

import dev.weir.translation.StepFailure;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;

/**
 * The map side of a non-merging {@code Combine.PerKey}: a partition's elements added into one
 * Beam accumulator per (key, window), held decoded in a hash map so that an update costs no
 * encoding, and handed on when the map holds {@code maxEntries} of them or the input ends. An
 * element in several windows is added to each without a windowed copy per window.
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
  private Iterator<CombineBuffer> sending;

  public PartialCombine(
      Iterator<? extends WindowedValue<KV<Object, Object>>> input,
      KeyWindowCombiner combiner,
      Coder<Object> keyCoder,
      Coder<BoundedWindow> windowCoder,
      int maxEntries) {
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
    sending = null;
    while (input.hasNext() && buffers.size() < maxEntries) {
      add(input.next());
    }
    if (buffers.isEmpty()) {
      return false;
    }
    sending = buffers.values().iterator();
    return true;
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

  private <T> Object structural(Coder<T> coder, T value) {
    try {
      return coder.structuralValue(value);
    } catch (Exception e) {
      throw new StepFailure(combiner.stepName(), e);
    }
  }
}
