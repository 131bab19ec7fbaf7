package dev.weir.translation;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.Materializations;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Encoders;

/**
 * The elements of one side input, Beam-encoded and broadcast to the executors, where they are
 * decoded once per task and grouped by window. The view's {@code ViewFn} turns them into what
 * the DoFn sees.
 */
public final class SideInputData implements Serializable {
  private final String tagId;
  private final String materializationUrn;
  private final Coder<?> keyCoder;
  private final Coder<WindowedValue<Object>> elementCoder;
  private final Broadcast<List<byte[]>> elements;
  private transient Map<BoundedWindow, List<Object>> byWindow;

  private SideInputData(
      String tagId,
      String materializationUrn,
      Coder<?> keyCoder,
      Coder<WindowedValue<Object>> elementCoder,
      Broadcast<List<byte[]>> elements) {
    this.tagId = tagId;
    this.materializationUrn = materializationUrn;
    this.keyCoder = keyCoder;
    this.elementCoder = elementCoder;
    this.elements = elements;
  }

  static SideInputData collect(TranslationContext ctx, PCollectionView<?> view, PCollection<?> pc) {
    return of(ctx, view, pc, encodedElements(ctx, view, pc));
  }

  /**
   * The elements of {@code pc} in this translation (a streaming epoch's: its RDD), Beam-encoded
   * with their windows, on the driver.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static List<byte[]> encodedElements(TranslationContext ctx, PCollectionView<?> view, PCollection<?> pc) {
    ctx.session().sparkContext().setJobDescription("side input " + view.getTagInternal().getId());
    CoderFunctions.Encode<WindowedValue<Object>> encode = new CoderFunctions.Encode<>(elementCoder(pc));
    if (ctx.hasRdd(pc)) {
      return Rdds.collect(Rdds.map(ctx.rdd((PCollection<Object>) pc), encode));
    }
    return ctx.dataset((PCollection<Object>) pc).map(encode, Encoders.BINARY()).collectAsList();
  }

  /** A side input of {@code view} holding {@code bytes}, as {@link #encodedElements} makes them. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static SideInputData of(TranslationContext ctx, PCollectionView<?> view, PCollection<?> pc, List<byte[]> bytes) {
    String urn = view.getViewFn().getMaterialization().getUrn();
    Coder<?> keyCoder = null;
    if (Materializations.MULTIMAP_MATERIALIZATION_URN.equals(urn)) {
      keyCoder = ((KvCoder<?, ?>) pc.getCoder()).getKeyCoder();
    } else if (!Materializations.ITERABLE_MATERIALIZATION_URN.equals(urn)) {
      throw new UnsupportedOperationException(
          "Side input " + view + " uses materialization " + urn + ", which WeirRunner does not know");
    }
    Broadcast<List<byte[]>> broadcast =
        JavaSparkContext.fromSparkContext(ctx.session().sparkContext()).broadcast(new ArrayList<>(bytes));
    return new SideInputData(view.getTagInternal().getId(), urn, keyCoder, elementCoder(pc), broadcast);
  }

  /** How the elements of {@code pc} are encoded here: values with their windows and panes. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static Coder<WindowedValue<Object>> elementCoder(PCollection<?> pc) {
    return (Coder) WindowedValues.getFullCoder(pc.getCoder(), TranslationContext.windowCoder(pc));
  }

  String tagId() {
    return tagId;
  }

  String materializationUrn() {
    return materializationUrn;
  }

  Coder<?> keyCoder() {
    return keyCoder;
  }

  /** The values of this side input in {@code window}, in no particular order. */
  List<Object> valuesIn(BoundedWindow window) {
    if (byWindow == null) {
      Map<BoundedWindow, List<Object>> grouped = new HashMap<>();
      for (byte[] b : elements.value()) {
        WindowedValue<Object> wv = decode(b);
        for (BoundedWindow w : wv.getWindows()) {
          grouped.computeIfAbsent(w, k -> new ArrayList<>()).add(wv.getValue());
        }
      }
      byWindow = grouped;
    }
    return byWindow.getOrDefault(window, List.of());
  }

  private WindowedValue<Object> decode(byte[] b) {
    try {
      return CoderUtils.decodeFromByteArray(elementCoder, b);
    } catch (Exception e) {
      throw new IllegalStateException("Could not decode an element of side input " + tagId, e);
    }
  }

  void destroy() {
    elements.destroy();
  }
}
