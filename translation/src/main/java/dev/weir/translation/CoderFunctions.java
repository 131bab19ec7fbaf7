package dev.weir.translation;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.api.java.function.MapFunction;

/**
 * Elements to their Beam encoding and back, as Spark functions for RDDs ({@link Function}) and
 * Datasets ({@link MapFunction}) alike. What Spark keeps (persisted blocks), shuffles or sends
 * to the driver is Beam-encoded bytes: Beam's values need not be Java-serializable.
 */
public final class CoderFunctions {
  private CoderFunctions() {}

  /** An element to its bytes in {@code coder}. */
  public static final class Encode<T> implements Function<T, byte[]>, MapFunction<T, byte[]> {
    private final Coder<T> coder;

    public Encode(Coder<T> coder) {
      this.coder = coder;
    }

    @Override
    public byte[] call(T element) throws Exception {
      return CoderUtils.encodeToByteArray(coder, element);
    }
  }

  /** Bytes in {@code coder} back to the element. */
  public static final class Decode<T> implements Function<byte[], T>, MapFunction<byte[], T> {
    private final Coder<T> coder;

    public Decode(Coder<T> coder) {
      this.coder = coder;
    }

    @Override
    public T call(byte[] bytes) throws Exception {
      return CoderUtils.decodeFromByteArray(coder, bytes);
    }
  }
}
