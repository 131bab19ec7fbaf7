package dev.weir.encoders;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;

/**
 * Values to a coder's bytes and back: the bytes Beam's {@code CoderUtils} gives (the outer
 * context: the value is the whole array), through streams of its own.
 *
 * <p>{@code CoderUtils} writes through a thread-local stream, which costs three thread-local
 * lookups, two wrapper streams and a synchronized {@code ByteArrayOutputStream} per value, and
 * reads through a synchronized {@code ByteArrayInputStream}. Per element on Spark's executor
 * threads (an unbounded read's epoch data, shuffles, Dataset columns) that was a visible part of
 * a query's time. Here an encoding goes into an unsynchronized buffer that starts at the size of
 * a recent value (up to {@value #MAX_FIRST_BUFFER} bytes), so values of steady size are written
 * without regrowing, and a decoding reads an unsynchronized view of the array.
 *
 * <p>An instance may be used from several threads at once: each call has its own buffer, and
 * the size it remembers is a hint only.
 */
@SuppressWarnings("deprecation") // Beam's context methods: the one way to choose the outer context.
public final class CoderBytes<T> implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MIN_BUFFER = 32;
  /** The largest first buffer: one large value must not make every later one allocate as much. */
  private static final int MAX_FIRST_BUFFER = 4096;

  private final Coder<T> coder;
  /** The size of a recent encoding: a hint only, so unsynchronized reads and writes are fine. */
  private int sizeHint = MIN_BUFFER;

  private CoderBytes(Coder<T> coder) {
    this.coder = coder;
  }

  public static <T> CoderBytes<T> of(Coder<T> coder) {
    return new CoderBytes<>(coder);
  }

  public Coder<T> coder() {
    return coder;
  }

  /** The value in the coder's outer context, as {@code CoderUtils.encodeToByteArray} gives it. */
  public byte[] encode(T value) throws CoderException {
    Output out = new Output(sizeHint);
    try {
      coder.encode(value, out, Coder.Context.OUTER);
    } catch (CoderException e) {
      throw e;
    } catch (IOException e) {
      throw new CoderException("Coder " + coder + " could not encode " + value, e);
    }
    sizeHint = Math.min(MAX_FIRST_BUFFER, Math.max(MIN_BUFFER, out.size));
    return out.bytes();
  }

  /** The value whose outer-context encoding is exactly {@code bytes}: unread bytes are an error. */
  public T decode(byte[] bytes) throws CoderException {
    Input in = new Input(bytes);
    T value;
    try {
      value = coder.decode(in, Coder.Context.OUTER);
    } catch (CoderException e) {
      throw e;
    } catch (IOException e) {
      throw new CoderException("Coder " + coder + " could not decode " + bytes.length + " bytes", e);
    }
    if (in.available() != 0) {
      throw new CoderException(
          "Coder " + coder + " left " + in.available() + " of " + bytes.length + " bytes unread: not its encoding");
    }
    return value;
  }

  /** An unsynchronized growable byte array: one per value encoded, on one thread. */
  private static final class Output extends OutputStream {
    private byte[] bytes;
    private int size;

    Output(int capacity) {
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

  /** An unsynchronized stream over one array, read on one thread. */
  private static final class Input extends InputStream {
    private final byte[] bytes;
    private int position;

    Input(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read() {
      return position < bytes.length ? bytes[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, bytes.length - position);
      if (n <= 0) {
        return -1;
      }
      System.arraycopy(bytes, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, bytes.length - position));
      position += (int) skipped;
      return skipped;
    }

    @Override
    public int available() {
      return bytes.length - position;
    }
  }
}
