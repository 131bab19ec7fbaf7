package dev.weir.encoders;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.coders.CollectionCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Instant;

/**
 * An element's windows as the bytes of its row's windows column. Interval windows (fixed,
 * sliding, sessions), the common case, are pairs of big-endian longs (start, end in
 * milliseconds), written and read in one buffer: Beam's collection coder, which any other kind
 * of window gets, costs a stream, a length prefix and a coder call per window, once for every
 * element at every step, and a sliding window gives each element several windows. The bytes live
 * only in Spark's rows between steps; nothing else reads them.
 */
abstract class WindowsCodec implements java.io.Serializable {
  abstract byte[] encode(Collection<? extends BoundedWindow> windows);

  abstract Collection<? extends BoundedWindow> decode(byte[] bytes);

  static WindowsCodec of(Coder<? extends BoundedWindow> windowCoder) {
    return windowCoder instanceof IntervalWindow.IntervalWindowCoder ? new Intervals() : new WithCoder(windowCoder);
  }

  private static final class Intervals extends WindowsCodec {
    @Override
    byte[] encode(Collection<? extends BoundedWindow> windows) {
      ByteBuffer bytes = ByteBuffer.allocate(16 * windows.size());
      for (BoundedWindow w : windows) {
        IntervalWindow window = (IntervalWindow) w;
        bytes.putLong(window.start().getMillis()).putLong(window.end().getMillis());
      }
      return bytes.array();
    }

    @Override
    Collection<? extends BoundedWindow> decode(byte[] bytes) {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      int n = bytes.length / 16;
      if (n == 1) {
        return List.of(new IntervalWindow(new Instant(in.getLong()), new Instant(in.getLong())));
      }
      List<IntervalWindow> windows = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        windows.add(new IntervalWindow(new Instant(in.getLong()), new Instant(in.getLong())));
      }
      return windows;
    }
  }

  private static final class WithCoder extends WindowsCodec {
    private final CoderCodec<Collection<BoundedWindow>> codec;

    @SuppressWarnings({"unchecked", "rawtypes"})
    WithCoder(Coder<? extends BoundedWindow> windowCoder) {
      this.codec = new CoderCodec(CollectionCoder.of(windowCoder));
    }

    @Override
    @SuppressWarnings("unchecked")
    byte[] encode(Collection<? extends BoundedWindow> windows) {
      return codec.encode((Collection<BoundedWindow>) windows);
    }

    @Override
    Collection<? extends BoundedWindow> decode(byte[] bytes) {
      return codec.decode(bytes);
    }
  }
}
