package dev.weir.encoders;

import java.util.List;
import org.apache.beam.sdk.coders.BigEndianIntegerCoder;
import org.apache.beam.sdk.coders.BigEndianLongCoder;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.catalyst.encoders.AgnosticEncoder;
import org.apache.spark.sql.catalyst.encoders.AgnosticEncoders;
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder;
import org.apache.spark.sql.types.Metadata;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Spark encoders for Beam coders.
 *
 * <p>Well-known coders (UTF-8 strings, longs, ints, doubles, booleans, byte arrays and KVs with
 * such a key or value) map to native Spark types, so Catalyst can group and compare them
 * without calling Beam. Every other coder becomes a binary column whose generated code is one
 * call to a compiled {@link CoderCodec}. A windowed value is a struct {@code (value, timestamp,
 * windows, pane)} with a native timestamp column.
 */
public final class CoderEncoders {
  private CoderEncoders() {}

  /** An encoder for the values of {@code coder}. */
  @SuppressWarnings("unchecked")
  public static <T> Encoder<T> of(Coder<T> coder) {
    return ExpressionEncoder.apply((AgnosticEncoder<T>) agnostic(coder));
  }

  /** An encoder for windowed values of {@code valueCoder} in windows of {@code windowCoder}. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static <T> Encoder<WindowedValue<T>> windowed(
      Coder<T> valueCoder, Coder<? extends BoundedWindow> windowCoder) {
    AgnosticEncoder<WindowedRow> row =
        bean(
            WindowedRow.class,
            field("value", agnostic(valueCoder)),
            field("timestamp", new AgnosticEncoders.InstantEncoder(false)),
            field("windows", AgnosticEncoders.BinaryEncoder$.MODULE$),
            field("pane", AgnosticEncoders.BinaryEncoder$.MODULE$));
    AgnosticEncoder<WindowedValue<T>> enc =
        new AgnosticEncoders.TransformingEncoder(
            classTag(WindowedValue.class),
            row,
            new CodecProvider<>(new WindowedValueCodec(windowCoder)),
            false);
    return ExpressionEncoder.apply(enc);
  }

  /** True if values of {@code coder} are stored as a native Spark type, not as bytes. */
  public static boolean isNative(Coder<?> coder) {
    return nativeEncoder(coder) != null;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static AgnosticEncoder<?> agnostic(Coder<?> coder) {
    AgnosticEncoder<?> nativeEnc = nativeEncoder(coder);
    if (nativeEnc != null) {
      return nativeEnc;
    }
    if (coder instanceof KvCoder) {
      KvCoder<?, ?> kv = (KvCoder<?, ?>) coder;
      if (isNative(kv.getKeyCoder()) || isNative(kv.getValueCoder())) {
        AgnosticEncoder<KvRow> row =
            bean(
                KvRow.class,
                field("key", agnostic(kv.getKeyCoder())),
                field("value", agnostic(kv.getValueCoder())));
        return new AgnosticEncoders.TransformingEncoder(
            classTag(KV.class), row, new CodecProvider<>(new KvCodec()), false);
      }
    }
    return new AgnosticEncoders.TransformingEncoder(
        classTag(Object.class),
        AgnosticEncoders.BinaryEncoder$.MODULE$,
        new CodecProvider<>(new CoderCodec<>((Coder<Object>) coder)),
        false);
  }

  private static AgnosticEncoder<?> nativeEncoder(Coder<?> coder) {
    Class<?> c = coder.getClass();
    if (c == StringUtf8Coder.class) {
      return AgnosticEncoders.StringEncoder$.MODULE$;
    } else if (c == VarLongCoder.class || c == BigEndianLongCoder.class) {
      return AgnosticEncoders.BoxedLongEncoder$.MODULE$;
    } else if (c == VarIntCoder.class || c == BigEndianIntegerCoder.class) {
      return AgnosticEncoders.BoxedIntEncoder$.MODULE$;
    } else if (c == DoubleCoder.class) {
      return AgnosticEncoders.BoxedDoubleEncoder$.MODULE$;
    } else if (c == BooleanCoder.class) {
      return AgnosticEncoders.BoxedBooleanEncoder$.MODULE$;
    } else if (c == ByteArrayCoder.class) {
      return AgnosticEncoders.BinaryEncoder$.MODULE$;
    }
    return null;
  }

  private static AgnosticEncoders.EncoderField field(String name, AgnosticEncoder<?> enc) {
    String accessor = Character.toUpperCase(name.charAt(0)) + name.substring(1);
    return new AgnosticEncoders.EncoderField(
        name, enc, true, Metadata.empty(), Option.apply("get" + accessor), Option.apply("set" + accessor));
  }

  private static <T> AgnosticEncoder<T> bean(Class<T> cls, AgnosticEncoders.EncoderField... fields) {
    return new AgnosticEncoders.JavaBeanEncoder<>(
        classTag(cls), CollectionConverters.asScala(List.of(fields)).toList());
  }

  @SuppressWarnings("unchecked")
  private static <T> ClassTag<T> classTag(Class<?> cls) {
    return (ClassTag<T>) ClassTag$.MODULE$.apply(cls);
  }
}
