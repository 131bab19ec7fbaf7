package dev.weir.encoders;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.coders.CollectionCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.sql.catalyst.encoders.Codec;

/**
 * {@code WindowedValue} to and from its {@link WindowedRow} struct. Beam timestamps are
 * milliseconds between {@code TIMESTAMP_MIN_VALUE} and {@code TIMESTAMP_MAX_VALUE}, which Beam
 * chose so that they fit Spark's microsecond timestamps, so the column is a native
 * {@code TimestampType}.
 */
final class WindowedValueCodec implements Codec<WindowedValue<Object>, WindowedRow> {
  private static final List<GlobalWindow> GLOBAL = List.of(GlobalWindow.INSTANCE);

  private final CoderCodec<Collection<BoundedWindow>> windowsCodec;
  private final CoderCodec<PaneInfo> paneCodec = new CoderCodec<>(PaneInfo.PaneInfoCoder.INSTANCE);

  @SuppressWarnings({"unchecked", "rawtypes"})
  WindowedValueCodec(Coder<? extends BoundedWindow> windowCoder) {
    this.windowsCodec = new CoderCodec(CollectionCoder.of(windowCoder));
  }

  @Override
  @SuppressWarnings("unchecked")
  public WindowedRow encode(WindowedValue<Object> wv) {
    WindowedRow row = new WindowedRow();
    row.setValue(wv.getValue());
    row.setTimestamp(Instant.ofEpochMilli(wv.getTimestamp().getMillis()));
    Collection<? extends BoundedWindow> windows = wv.getWindows();
    if (!(windows.size() == 1 && windows.iterator().next() instanceof GlobalWindow)) {
      row.setWindows(windowsCodec.encode((Collection<BoundedWindow>) windows));
    }
    PaneInfo pane = wv.getPaneInfo();
    if (!PaneInfo.NO_FIRING.equals(pane)) {
      row.setPane(paneCodec.encode(pane));
    }
    return row;
  }

  @Override
  public WindowedValue<Object> decode(WindowedRow row) {
    Collection<? extends BoundedWindow> windows =
        row.getWindows() == null ? GLOBAL : windowsCodec.decode(row.getWindows());
    PaneInfo pane = row.getPane() == null ? PaneInfo.NO_FIRING : paneCodec.decode(row.getPane());
    return WindowedValues.of(
        row.getValue(), new org.joda.time.Instant(row.getTimestamp().toEpochMilli()), windows, pane);
  }
}
