package dev.weir.translation.streaming;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.joda.time.Instant;

/**
 * What the driver commits to the checkpoint dir after an epoch, all in one file: the epoch, its
 * processing time, the partition count of keyed state, every step's watermarks, what every step
 * keeps between epochs ({@link StepProgress}: a source's splits and checkpoint marks, a
 * TestStream's position, elements waiting for side inputs), and the side inputs received so far.
 * Keyed state itself is in the state files, at this epoch's version.
 *
 * <p>The file starts with {@link #FORMAT}; then every field in a fixed order. What steps keep is
 * each written by its own kind's Beam coder, so the commit holds no Java-serialized object graph
 * of the driver's classes (a source split is serialized as Beam itself ships sources).
 *
 * @param progress by {@link StepProgress#key}, each encoded with its kind's coder
 * @param sideInputs by side input tag, each encoded by {@link StreamingRun}'s side-input coder
 */
public record EpochCommit(
    long epoch,
    long processingTimeMillis,
    boolean draining,
    int keyedPartitions,
    Map<String, OperatorWatermarks> watermarks,
    Map<String, byte[]> progress,
    Map<String, byte[]> sideInputs) {
  /** The version of this file's layout; the checkpoint dir's format changes with it ({@link CheckpointDir}). */
  static final int FORMAT = 2;

  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(FORMAT);
      out.writeLong(epoch);
      out.writeLong(processingTimeMillis);
      out.writeBoolean(draining);
      out.writeInt(keyedPartitions);
      out.writeInt(watermarks.size());
      for (Map.Entry<String, OperatorWatermarks> w : watermarks.entrySet()) {
        FieldsCoder.writeNullable(w.getKey(), out);
        out.writeLong(w.getValue().input().getMillis());
        out.writeLong(w.getValue().output().getMillis());
        out.writeBoolean(w.getValue().idle());
      }
      writeBytesMap(progress, out);
      writeBytesMap(sideInputs, out);
    } catch (IOException e) {
      throw new IllegalStateException("Could not encode the commit of epoch " + epoch, e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a commit; {@code where} names the file in errors.
   *
   * @throws IOException if it is not a commit of this {@link #FORMAT}, or is cut short
   */
  static EpochCommit decode(byte[] bytes, String where) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    int format = bytes.length < 4 ? -1 : in.readInt();
    if (format != FORMAT) {
      throw new IOException(where + " is not an epoch commit of format " + FORMAT + " (it starts with " + format + ")");
    }
    long epoch = in.readLong();
    long processingTime = in.readLong();
    boolean draining = in.readBoolean();
    int partitions = in.readInt();
    int steps = in.readInt();
    Map<String, OperatorWatermarks> watermarks = new LinkedHashMap<>();
    for (int i = 0; i < steps; i++) {
      String step = FieldsCoder.readString(in);
      watermarks.put(step, new OperatorWatermarks(new Instant(in.readLong()), new Instant(in.readLong()), in.readBoolean()));
    }
    Map<String, byte[]> progress = readBytesMap(in);
    Map<String, byte[]> sideInputs = readBytesMap(in);
    if (in.read() != -1) {
      throw new IOException(where + " has bytes after its last field");
    }
    return new EpochCommit(epoch, processingTime, draining, partitions, watermarks, progress, sideInputs);
  }

  private static void writeBytesMap(Map<String, byte[]> map, DataOutputStream out) throws IOException {
    out.writeInt(map.size());
    for (Map.Entry<String, byte[]> e : map.entrySet()) {
      FieldsCoder.writeNullable(e.getKey(), out);
      FieldsCoder.writeNullable(e.getValue(), out);
    }
  }

  private static Map<String, byte[]> readBytesMap(DataInputStream in) throws IOException {
    int n = in.readInt();
    Map<String, byte[]> map = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      String key = FieldsCoder.readString(in);
      byte[] value = FieldsCoder.readNullableBytes(in);
      if (value == null) {
        throw new IOException("No bytes for '" + key + "'");
      }
      map.put(key, value);
    }
    return map;
  }
}
