package dev.weir.nexmark.reference;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Beam's session windows for one key, for the models: each element opens [t, t + gap), and
 * windows that overlap merge, so a session ends {@code gap} after its latest element.
 */
final class Sessions<T> {
  /** One session: its interval and its elements. */
  record Session<T>(long startMs, long endMs, List<T> elements) {}

  private final TreeMap<Long, List<T>> byTime = new TreeMap<>();

  void add(long timestampMs, T element) {
    byTime.computeIfAbsent(timestampMs, k -> new ArrayList<>()).add(element);
  }

  List<Session<T>> sessions(long gapMs) {
    List<Session<T>> out = new ArrayList<>();
    List<T> current = new ArrayList<>();
    long start = 0;
    long end = 0;
    for (Map.Entry<Long, List<T>> t : byTime.entrySet()) {
      if (!current.isEmpty() && t.getKey() >= end) {
        out.add(new Session<>(start, end, current));
        current = new ArrayList<>();
      }
      if (current.isEmpty()) {
        start = t.getKey();
      }
      current.addAll(t.getValue());
      end = t.getKey() + gapMs;
    }
    if (!current.isEmpty()) {
      out.add(new Session<>(start, end, current));
    }
    return out;
  }
}
