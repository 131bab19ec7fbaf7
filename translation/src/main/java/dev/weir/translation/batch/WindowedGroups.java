package dev.weir.translation.batch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.joda.time.Instant;

/**
 * Batch windowing helpers shared by GroupByKey and Combine: merging windows for one key, and the
 * output timestamp of a window's pane. In batch the watermark is perfect, so every window fires
 * exactly once, complete, as Beam's ON_TIME_AND_ONLY_FIRING pane.
 */
final class WindowedGroups {
  private WindowedGroups() {}

  /**
   * Maps every window of one key to the window it merges into, using {@code windowFn}'s own
   * merge logic (sessions, or any custom merging WindowFn).
   */
  @SuppressWarnings("unchecked")
  static Map<BoundedWindow, BoundedWindow> mergeWindows(
      WindowFn<?, ?> windowFn, Collection<BoundedWindow> windows) throws Exception {
    WindowFn<Object, BoundedWindow> fn = (WindowFn<Object, BoundedWindow>) windowFn;
    Set<BoundedWindow> distinct = new HashSet<>(windows);
    Map<BoundedWindow, BoundedWindow> mergedInto = new HashMap<>();
    for (BoundedWindow w : distinct) {
      mergedInto.put(w, w);
    }
    fn.mergeWindows(
        fn.new MergeContext() {
          @Override
          public Collection<BoundedWindow> windows() {
            return distinct;
          }

          @Override
          public void merge(Collection<BoundedWindow> toBeMerged, BoundedWindow mergeResult) {
            for (BoundedWindow w : toBeMerged) {
              mergedInto.put(w, mergeResult);
            }
          }
        });
    return mergedInto;
  }

  /** The timestamp of the pane of {@code window} for elements with {@code timestamps}. */
  static Instant outputTimestamp(
      TimestampCombiner combiner, BoundedWindow window, Iterable<Instant> timestamps) {
    List<Instant> assigned = new ArrayList<>();
    for (Instant ts : timestamps) {
      assigned.add(combiner.assign(window, ts));
    }
    return combiner.merge(window, assigned);
  }

  static <T> Iterable<T> iterable(Iterator<T> it) {
    return () -> it;
  }
}
