package dev.weir.encoders;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.encoders.Codec;
import scala.runtime.AbstractFunction0;

/** Spark asks a TransformingEncoder for a codec through a serialisable Scala function. */
final class CodecProvider<I, O> extends AbstractFunction0<Codec<? super I, O>>
    implements Serializable {
  private final Codec<? super I, O> codec;

  CodecProvider(Codec<? super I, O> codec) {
    this.codec = codec;
  }

  @Override
  public Codec<? super I, O> apply() {
    return codec;
  }
}
