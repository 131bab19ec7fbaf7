package dev.weir.translation.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/**
 * The aggregation buffer of one (key, window) of a {@code Combine.PerKey}: the Beam accumulator
 * plus what the output needs, the key, the window and the output timestamp so far. Empty
 * ({@code accumulator == null}) until the first input arrives.
 */
public final class CombineBuffer {
  public Object key;
  public BoundedWindow window;
  public Instant timestamp;
  public Object accumulator;

  public boolean isEmpty() {
    return accumulator == null;
  }

  /** Beam-encodes a buffer for Spark's shuffle between partial and final aggregation. */
  public static final class BufferCoder extends CustomCoder<CombineBuffer> {
    private final Coder<Object> keyCoder;
    private final Coder<BoundedWindow> windowCoder;
    private final Coder<Object> accumulatorCoder;

    public BufferCoder(Coder<Object> keyCoder, Coder<BoundedWindow> windowCoder, Coder<Object> accumulatorCoder) {
      this.keyCoder = keyCoder;
      this.windowCoder = windowCoder;
      this.accumulatorCoder = accumulatorCoder;
    }

    @Override
    public void encode(CombineBuffer buffer, OutputStream out) throws IOException {
      BooleanCoder.of().encode(buffer.isEmpty(), out);
      if (buffer.isEmpty()) {
        return;
      }
      keyCoder.encode(buffer.key, out);
      windowCoder.encode(buffer.window, out);
      InstantCoder.of().encode(buffer.timestamp, out);
      accumulatorCoder.encode(buffer.accumulator, out);
    }

    @Override
    public CombineBuffer decode(InputStream in) throws IOException {
      CombineBuffer buffer = new CombineBuffer();
      if (BooleanCoder.of().decode(in)) {
        return buffer;
      }
      buffer.key = keyCoder.decode(in);
      buffer.window = windowCoder.decode(in);
      buffer.timestamp = InstantCoder.of().decode(in);
      buffer.accumulator = accumulatorCoder.decode(in);
      return buffer;
    }
  }
}
