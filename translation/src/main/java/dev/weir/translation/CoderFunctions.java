package dev.weir.translation;

import dev.weir.encoders.CoderBytes;
import org.apache.beam.sdk.coders.Coder;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.api.java.function.MapFunction;

/**
 * Elements to their Beam encoding and back, as Spark functions for RDDs ({@link Function}) and
 * Datasets ({@link MapFunction}) alike. What Spark keeps (persisted blocks), shuffles or sends
 * to the driver is Beam-encoded bytes: Beam's values need not be Java-serializable. The bytes are
 * {@link CoderBytes}'s: Beam's, without {@code CoderUtils}' thread-local streams per element.
 */
public final class CoderFunctions {
  private CoderFunctions() {}

  /** An element to its bytes in {@code coder}. */
  public static final class Encode<T> implements Function<T, byte[]>, MapFunction<T, byte[]> {
    private final CoderBytes<T> coder;

    public Encode(Coder<T> coder) {
      this.coder = CoderBytes.of(coder);
    }

    @Override
    public byte[] call(T element) throws Exception {
      return coder.encode(element);
    }
  }

  /** Bytes in {@code coder} back to the element. */
  public static final class Decode<T> implements Function<byte[], T>, MapFunction<byte[], T> {
    private final CoderBytes<T> coder;

    public Decode(Coder<T> coder) {
      this.coder = CoderBytes.of(coder);
    }

    @Override
    public T call(byte[] bytes) throws Exception {
      return coder.decode(bytes);
    }
  }
}
