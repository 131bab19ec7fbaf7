package dev.weir.encoders;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.spark.sql.catalyst.encoders.Codec;

/**
 * A Beam {@link Coder} as a Spark {@link Codec} to bytes. Spark's generated code calls
 * {@link #encode} and {@link #decode} on this compiled object, so the generated code stays a
 * few lines whatever the coder. The bytes are {@link CoderBytes}'s, without {@code CoderUtils}'
 * thread-local stream: on Spark's executor threads, which hold many thread locals, its lookups
 * were a visible part of encoding small values such as windows (Nexmark q9).
 */
final class CoderCodec<T> implements Codec<T, byte[]> {
  private final CoderBytes<T> bytes;

  CoderCodec(Coder<T> coder) {
    this.bytes = CoderBytes.of(coder);
  }

  @Override
  public byte[] encode(T value) {
    try {
      return bytes.encode(value);
    } catch (CoderException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public T decode(byte[] encoded) {
    try {
      return bytes.decode(encoded);
    } catch (CoderException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
