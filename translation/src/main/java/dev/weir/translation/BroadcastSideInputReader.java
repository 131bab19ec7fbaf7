package dev.weir.translation;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryMultimapSideInputView;
import org.apache.beam.runners.core.SideInputReader;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.Materializations;
import org.apache.beam.sdk.transforms.ViewFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A {@link SideInputReader} over broadcast side inputs. In batch every side input is complete
 * before its readers run, so nothing is ever pushed back.
 */
public final class BroadcastSideInputReader implements SideInputReader, Serializable {
  private final Map<String, SideInputData> byTag = new HashMap<>();
  private transient Map<String, Map<BoundedWindow, Object>> views;
  // A DoFn asks for its side input on every element, with the same view object and most often
  // the same window: the last answer, matched by the view's reference and the window, spares
  // hashing and comparing the view's long tag id twice per element.
  private transient @Nullable PCollectionView<?> lastView;
  private transient @Nullable BoundedWindow lastWindow;
  private transient @Nullable Object lastValue;

  public BroadcastSideInputReader(Iterable<SideInputData> data) {
    for (SideInputData d : data) {
      byTag.put(d.tagId(), d);
    }
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <T> T get(PCollectionView<T> view, BoundedWindow window) {
    if (view == lastView && window.equals(lastWindow)) {
      return (T) lastValue;
    }
    T value = read(view, window);
    lastView = view;
    lastWindow = window;
    lastValue = value;
    return value;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private <T> T read(PCollectionView<T> view, BoundedWindow window) {
    SideInputData data = byTag.get(view.getTagInternal().getId());
    if (data == null) {
      throw new IllegalArgumentException("Unknown side input " + view);
    }
    BoundedWindow sideWindow = view.getWindowMappingFn().getSideInputWindow(window);
    if (views == null) {
      views = new HashMap<>();
    }
    Map<BoundedWindow, Object> perWindow = views.computeIfAbsent(data.tagId(), k -> new HashMap<>());
    if (perWindow.containsKey(sideWindow)) {
      return (T) perWindow.get(sideWindow);
    }
    List<Object> values = data.valuesIn(sideWindow);
    ViewFn viewFn = view.getViewFn();
    Object result;
    if (Materializations.MULTIMAP_MATERIALIZATION_URN.equals(data.materializationUrn())) {
      result =
          viewFn.apply(
              InMemoryMultimapSideInputView.fromIterable(
                  (Coder<Object>) data.keyCoder(), (List<KV<Object, Object>>) (List) values));
    } else {
      Materializations.IterableView<Object> iterable = () -> values;
      result = viewFn.apply(iterable);
    }
    perWindow.put(sideWindow, result);
    return (T) result;
  }

  @Override
  public <T> boolean contains(PCollectionView<T> view) {
    return view == lastView || byTag.containsKey(view.getTagInternal().getId());
  }

  @Override
  public boolean isEmpty() {
    return byTag.isEmpty();
  }
}
