package dev.weir.encoders;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.beam.sdk.coders.Coder;
import org.apache.spark.sql.catalyst.encoders.Codec;

/**
 * A Beam {@link Coder} as a Spark {@link Codec} to bytes. Spark's generated code calls
 * {@link #encode} and {@link #decode} on this compiled object, so the generated code stays a
 * few lines whatever the coder.
 *
 * <p>It encodes into a buffer of its own rather than through Beam's {@code CoderUtils}, whose
 * thread-local stream costs three thread-local lookups and two wrapper streams per value: on
 * Spark's executor threads, which hold many thread locals, those lookups were a visible part of
 * encoding small values such as windows (Nexmark q9). The buffer starts at the size of the last
 * value encoded (up to {@value #MAX_FIRST_BUFFER} bytes), so a value of steady size is written
 * without regrowing.
 */
@SuppressWarnings("deprecation") // Beam's context methods: the one way to choose the outer context.
final class CoderCodec<T> implements Codec<T, byte[]> {
  private static final int MIN_BUFFER = 32;
  /** The largest first buffer: one large value must not make every later one allocate as much. */
  private static final int MAX_FIRST_BUFFER = 4096;

  private final Coder<T> coder;
  /** The size of a recent encoding: a hint only, so unsynchronized reads and writes are fine. */
  private int sizeHint = MIN_BUFFER;

  CoderCodec(Coder<T> coder) {
    this.coder = coder;
  }

  @Override
  public byte[] encode(T value) {
    Buffer buffer = new Buffer(sizeHint);
    try {
      // The outer context, as CoderUtils encodes: the value is the whole array (a string, for
      // one, has no length prefix), and the bytes stay those earlier versions wrote.
      coder.encode(value, buffer, Coder.Context.OUTER);
    } catch (IOException e) {
      throw new IllegalStateException("Coder " + coder + " could not encode " + value, e);
    }
    sizeHint = Math.min(MAX_FIRST_BUFFER, Math.max(MIN_BUFFER, buffer.size));
    return buffer.bytes();
  }

  @Override
  public T decode(byte[] bytes) {
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    T value;
    try {
      value = coder.decode(in, Coder.Context.OUTER);
    } catch (IOException e) {
      throw new IllegalStateException("Coder " + coder + " could not decode " + bytes.length + " bytes", e);
    }
    if (in.available() != 0) {
      throw new IllegalStateException(
          "Coder " + coder + " left " + in.available() + " of " + bytes.length + " bytes unread: not its encoding");
    }
    return value;
  }

  /** An unsynchronized growable byte array: one per value encoded, on one thread. */
  private static final class Buffer extends OutputStream {
    private byte[] bytes;
    private int size;

    Buffer(int capacity) {
      bytes = new byte[capacity];
    }

    private void ensure(int more) {
      if (size + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
      }
    }

    @Override
    public void write(int b) {
      ensure(1);
      bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, bytes, size, len);
      size += len;
    }

    byte[] bytes() {
      return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
  }
}
