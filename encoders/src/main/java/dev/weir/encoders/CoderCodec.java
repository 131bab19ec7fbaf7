package dev.weir.encoders;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.spark.sql.catalyst.encoders.Codec;

/**
 * A Beam {@link Coder} as a Spark {@link Codec} to bytes. Spark's generated code calls
 * {@link #encode} and {@link #decode} on this compiled object, so the generated code stays a
 * few lines whatever the coder.
 */
final class CoderCodec<T> implements Codec<T, byte[]> {
  private final Coder<T> coder;

  CoderCodec(Coder<T> coder) {
    this.coder = coder;
  }

  @Override
  public byte[] encode(T value) {
    try {
      return CoderUtils.encodeToByteArray(coder, value);
    } catch (CoderException e) {
      throw new IllegalStateException("Coder " + coder + " could not encode " + value, e);
    }
  }

  @Override
  public T decode(byte[] bytes) {
    try {
      return CoderUtils.decodeFromByteArray(coder, bytes);
    } catch (CoderException e) {
      throw new IllegalStateException("Coder " + coder + " could not decode " + bytes.length + " bytes", e);
    }
  }
}
