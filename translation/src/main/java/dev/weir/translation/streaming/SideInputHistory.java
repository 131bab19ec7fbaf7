package dev.weir.translation.streaming;

import dev.weir.translation.SideInputData;
import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.WindowedValue;

/**
 * What each side input of a streaming run has received, kept by the driver between epochs and
 * committed with them: for every window, the elements of its latest pane, and which windows
 * received a pane at all. Side inputs are told apart by their view's tag.
 */
final class SideInputHistory {
  private final Map<String, SideInputContents> byView = new HashMap<>();

  /**
   * Side input {@code view} as it stands in this epoch (Beam-encoded, one window each): for every
   * window, the elements of the latest pane received, as Beam specifies for triggered side
   * inputs (a pane replaces the one before; in accumulating mode it holds them too). Elements
   * that did not come from a grouping all count as one pane, so such a side input holds
   * everything received so far.
   */
  List<byte[]> contents(TranslationContext context, PCollectionView<?> view, PCollection<?> pc, long epoch) {
    SideInputContents contents = byView.computeIfAbsent(view.getTagInternal().getId(), k -> new SideInputContents());
    if (contents.epoch < epoch) {
      List<byte[]> added = SideInputData.encodedElements(context, view, pc);
      if (!added.isEmpty()) {
        contents.add(added, SideInputData.elementCoder(pc), TranslationContext.windowCoder(pc));
      }
      contents.epoch = epoch;
    }
    List<byte[]> elements = new ArrayList<>(contents.elements.size());
    for (SideInputElement e : contents.elements) {
      elements.add(e.bytes());
    }
    return elements;
  }

  /**
   * The windows (Beam-encoded, Base64) for which side input {@code view} received a pane (any
   * element): a main-input element mapped to one of them need not wait for the window to be
   * complete, as in Beam's DirectRunner. Call {@link #contents} first in the epoch.
   */
  Set<String> receivedWindows(PCollectionView<?> view) {
    SideInputContents contents = byView.get(view.getTagInternal().getId());
    return contents == null ? Set.of() : Collections.unmodifiableSet(contents.received);
  }

  /** A window as a key: its Beam encoding in Base64. */
  public static String windowKey(Coder<BoundedWindow> windowCoder, BoundedWindow window) {
    try {
      return Base64.getEncoder().encodeToString(CoderUtils.encodeToByteArray(windowCoder, window));
    } catch (Exception e) {
      throw new IllegalStateException("Could not encode window " + window, e);
    }
  }

  record SideInputElement(String window, long pane, byte[] bytes) {}

  /** What a side input received so far, by window: package-private for its commit's test. */
  static final class SideInputContents {
    ArrayList<SideInputElement> elements = new ArrayList<>();
    final HashMap<String, Long> latestPane = new HashMap<>();
    final HashSet<String> received = new HashSet<>();
    long epoch;

    private void write(java.io.DataOutputStream out) throws java.io.IOException {
      out.writeLong(epoch);
      out.writeInt(elements.size());
      for (SideInputElement e : elements) {
        FieldsCoder.writeNullable(e.window(), out);
        out.writeLong(e.pane());
        FieldsCoder.writeNullable(e.bytes(), out);
      }
      out.writeInt(latestPane.size());
      for (Map.Entry<String, Long> p : latestPane.entrySet()) {
        FieldsCoder.writeNullable(p.getKey(), out);
        out.writeLong(p.getValue());
      }
      out.writeInt(received.size());
      for (String window : received) {
        FieldsCoder.writeNullable(window, out);
      }
    }

    private static SideInputContents read(java.io.DataInputStream in) throws java.io.IOException {
      SideInputContents c = new SideInputContents();
      c.epoch = in.readLong();
      for (int i = in.readInt(); i > 0; i--) {
        c.elements.add(new SideInputElement(FieldsCoder.readString(in), in.readLong(), FieldsCoder.readNullableBytes(in)));
      }
      for (int i = in.readInt(); i > 0; i--) {
        c.latestPane.put(FieldsCoder.readString(in), in.readLong());
      }
      for (int i = in.readInt(); i > 0; i--) {
        c.received.add(FieldsCoder.readString(in));
      }
      return c;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    void add(List<byte[]> added, Coder<WindowedValue<Object>> elementCoder, Coder<? extends BoundedWindow> windowCoder) {
      for (byte[] b : added) {
        WindowedValue<Object> element;
        try {
          element = CoderUtils.decodeFromByteArray(elementCoder, b);
        } catch (Exception e) {
          throw new IllegalStateException("Could not decode a side input element", e);
        }
        for (WindowedValue<Object> single : element.explodeWindows()) {
          BoundedWindow window = single.getWindows().iterator().next();
          String key = windowKey((Coder) windowCoder, window);
          org.apache.beam.sdk.transforms.windowing.PaneInfo pane = single.getPaneInfo();
          latestPane.merge(key, pane.getIndex(), Math::max);
          received.add(key);
          try {
            elements.add(new SideInputElement(key, pane.getIndex(), CoderUtils.encodeToByteArray(elementCoder, single)));
          } catch (Exception e) {
            throw new IllegalStateException("Could not encode a side input element", e);
          }
        }
      }
      ArrayList<SideInputElement> latest = new ArrayList<>();
      for (SideInputElement e : elements) {
        if (e.pane() == latestPane.get(e.window())) {
          latest.add(e);
        }
      }
      elements = latest;
    }
  }

  /** A side input's contents as committed: its latest panes' elements, the windows received, its epoch. */
  static final Coder<SideInputContents> CODER = FieldsCoder.of(SideInputContents::write, SideInputContents::read);

  /** Every side input's contents, encoded for the epoch's commit. */
  Map<String, byte[]> snapshot() {
    Map<String, byte[]> committed = new HashMap<>();
    for (Map.Entry<String, SideInputContents> s : byView.entrySet()) {
      try {
        committed.put(s.getKey(), CoderUtils.encodeToByteArray(CODER, s.getValue()));
      } catch (Exception e) {
        throw new IllegalStateException("Could not encode side input " + s.getKey() + " for the epoch's commit", e);
      }
    }
    return committed;
  }

  /** Takes the side inputs' contents from a commit ({@code where} names it in errors). */
  void restore(Map<String, byte[]> committed, String where) {
    for (Map.Entry<String, byte[]> s : committed.entrySet()) {
      try {
        byView.put(s.getKey(), CoderUtils.decodeFromByteArray(CODER, s.getValue()));
      } catch (Exception e) {
        throw new IllegalStateException("Could not read side input " + s.getKey() + " from " + where, e);
      }
    }
  }
}
