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

/**
 * A {@link SideInputReader} over broadcast side inputs. In batch every side input is complete
 * before its readers run, so nothing is ever pushed back.
 */
public final class BroadcastSideInputReader implements SideInputReader, Serializable {
  private final Map<String, SideInputData> byTag = new HashMap<>();
  private transient Map<String, Map<BoundedWindow, Object>> views;

  public BroadcastSideInputReader(Iterable<SideInputData> data) {
    for (SideInputData d : data) {
      byTag.put(d.tagId(), d);
    }
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <T> T get(PCollectionView<T> view, BoundedWindow window) {
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
    return byTag.containsKey(view.getTagInternal().getId());
  }

  @Override
  public boolean isEmpty() {
    return byTag.isEmpty();
  }
}
