package dev.weir.encoders;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
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

  private final WindowsCodec windowsCodec;
  private final CoderCodec<PaneInfo> paneCodec = new CoderCodec<>(PaneInfo.PaneInfoCoder.INSTANCE);
  /**
   * The pane of every grouping's output in batch, encoded once: Spark copies a binary value
   * into its row, so the array is shared safely.
   */
  private final byte[] onlyFiring = paneCodec.encode(PaneInfo.ON_TIME_AND_ONLY_FIRING);

  WindowedValueCodec(Coder<? extends BoundedWindow> windowCoder) {
    this.windowsCodec = WindowsCodec.of(windowCoder);
  }

  @Override
  @SuppressWarnings("unchecked")
  public WindowedRow encode(WindowedValue<Object> wv) {
    WindowedRow row = new WindowedRow();
    row.setValue(wv.getValue());
    row.setTimestamp(Instant.ofEpochMilli(wv.getTimestamp().getMillis()));
    Collection<? extends BoundedWindow> windows = wv.getWindows();
    if (!(windows.size() == 1 && windows.iterator().next() instanceof GlobalWindow)) {
      row.setWindows(windowsCodec.encode(windows));
    }
    // Beam's constants first, by identity: PaneInfo.equals compares field by field.
    PaneInfo pane = wv.getPaneInfo();
    if (pane == PaneInfo.NO_FIRING) {
      return row;
    }
    if (pane == PaneInfo.ON_TIME_AND_ONLY_FIRING || PaneInfo.ON_TIME_AND_ONLY_FIRING.equals(pane)) {
      row.setPane(onlyFiring);
    } else if (!PaneInfo.NO_FIRING.equals(pane)) {
      row.setPane(paneCodec.encode(pane));
    }
    return row;
  }

  @Override
  public WindowedValue<Object> decode(WindowedRow row) {
    Collection<? extends BoundedWindow> windows =
        row.getWindows() == null ? GLOBAL : windowsCodec.decode(row.getWindows());
    byte[] paneBytes = row.getPane();
    PaneInfo pane = paneBytes == null ? PaneInfo.NO_FIRING
        : java.util.Arrays.equals(paneBytes, onlyFiring) ? PaneInfo.ON_TIME_AND_ONLY_FIRING
        : paneCodec.decode(paneBytes);
    return WindowedValues.of(
        row.getValue(), new org.joda.time.Instant(row.getTimestamp().toEpochMilli()), windows, pane);
  }
}
