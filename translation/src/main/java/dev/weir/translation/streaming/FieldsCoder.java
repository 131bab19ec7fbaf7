package dev.weir.translation.streaming;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.coders.CustomCoder;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A Beam coder that writes an object field by field with {@link DataOutputStream}: for what the
 * driver commits between epochs ({@link StepProgress}), whose layout is versioned by the checkpoint
 * dir's format, not by Java serialization. The helpers write what Beam's coders have no
 * single-field form for: nullable strings and byte arrays.
 */
final class FieldsCoder<T> extends CustomCoder<T> {
  interface Writer<T> extends Serializable {
    void write(T value, DataOutputStream out) throws IOException;
  }

  interface Reader<T> extends Serializable {
    T read(DataInputStream in) throws IOException;
  }

  private final Writer<T> writer;
  private final Reader<T> reader;

  private FieldsCoder(Writer<T> writer, Reader<T> reader) {
    this.writer = writer;
    this.reader = reader;
  }

  static <T> FieldsCoder<T> of(Writer<T> writer, Reader<T> reader) {
    return new FieldsCoder<>(writer, reader);
  }

  @Override
  public void encode(T value, OutputStream outStream) throws IOException {
    DataOutputStream out = new DataOutputStream(outStream);
    writer.write(value, out);
    out.flush();
  }

  @Override
  public T decode(InputStream inStream) throws IOException {
    return reader.read(new DataInputStream(inStream));
  }

  /** UTF-8 with its length first: {@link DataOutputStream#writeUTF} stops at 64 KB. */
  static void writeNullable(@Nullable String s, DataOutputStream out) throws IOException {
    writeNullable(s == null ? null : s.getBytes(StandardCharsets.UTF_8), out);
  }

  static @Nullable String readNullableString(DataInputStream in) throws IOException {
    byte[] bytes = readNullableBytes(in);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  static String readString(DataInputStream in) throws IOException {
    String s = readNullableString(in);
    if (s == null) {
      throw new IOException("A string expected, null found");
    }
    return s;
  }

  static void writeNullable(byte @Nullable [] bytes, DataOutputStream out) throws IOException {
    out.writeInt(bytes == null ? -1 : bytes.length);
    if (bytes != null) {
      out.write(bytes);
    }
  }

  static byte @Nullable [] readNullableBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }
}
