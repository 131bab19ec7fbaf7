package dev.weir.encoders;

import java.time.Instant;

/**
 * The Spark-side shape of a Beam {@code WindowedValue}: value, a native timestamp column, and
 * the windows and pane as Beam-encoded bytes. {@code windows == null} stands for the global
 * window and {@code pane == null} for {@code PaneInfo.NO_FIRING}, the overwhelmingly common
 * cases, so they cost nothing. Public bean only because Spark's bean encoder needs it.
 */
public final class WindowedRow {
  private Object value;
  private Instant timestamp;
  private byte[] windows;
  private byte[] pane;

  public Object getValue() {
    return value;
  }

  public void setValue(Object value) {
    this.value = value;
  }

  public Instant getTimestamp() {
    return timestamp;
  }

  public void setTimestamp(Instant timestamp) {
    this.timestamp = timestamp;
  }

  public byte[] getWindows() {
    return windows;
  }

  public void setWindows(byte[] windows) {
    this.windows = windows;
  }

  public byte[] getPane() {
    return pane;
  }

  public void setPane(byte[] pane) {
    this.pane = pane;
  }
}
