package dev.weir.encoders;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CoderEncodersTest {
  private static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder().master("local[2]").appName("CoderEncodersTest").getOrCreate();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  private static <T> List<T> roundTrip(Encoder<T> encoder, List<T> values) {
    return spark.createDataset(values, encoder).collectAsList();
  }

  @Test
  void stringsAreNativeStrings() {
    Encoder<String> enc = CoderEncoders.of(StringUtf8Coder.of());
    assertThat(enc.schema().fields()[0].dataType(), equalTo(DataTypes.StringType));
    assertThat(roundTrip(enc, List.of("a", "", "ü")), containsInAnyOrder("a", "", "ü"));
  }

  @Test
  void otherCodersAreBinaryAndRoundTrip() {
    Coder<List<String>> coder = ListCoder.of(NullableCoder.of(StringUtf8Coder.of()));
    Encoder<List<String>> enc = CoderEncoders.of(coder);
    assertThat(enc.schema().fields()[0].dataType(), equalTo(DataTypes.BinaryType));
    List<String> withNull = java.util.Arrays.asList("x", null);
    assertThat(roundTrip(enc, List.of(withNull, List.of())), containsInAnyOrder(withNull, List.of()));
  }

  @Test
  void kvWithNativeKeyIsAStruct() {
    Encoder<KV<String, Long>> enc = CoderEncoders.of(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()));
    assertThat(enc.schema().fieldNames(), equalTo(new String[] {"key", "value"}));
    assertThat(roundTrip(enc, List.of(KV.of("a", 1L), KV.of("b", 2L))),
        containsInAnyOrder(KV.of("a", 1L), KV.of("b", 2L)));
  }

  @Test
  void windowedValuesKeepTimestampWindowsAndPane() {
    Encoder<WindowedValue<SerializableThing>> enc =
        CoderEncoders.windowed(SerializableCoder.of(SerializableThing.class), IntervalWindow.getCoder());
    IntervalWindow w = new IntervalWindow(new Instant(0), new Instant(10));
    PaneInfo pane = PaneInfo.createPane(true, false, PaneInfo.Timing.EARLY, 0, -1);
    WindowedValue<SerializableThing> a = WindowedValues.of(new SerializableThing("a"), new Instant(5), w, pane);
    WindowedValue<SerializableThing> b =
        WindowedValues.of(new SerializableThing("b"), BoundedWindow.TIMESTAMP_MIN_VALUE, w, PaneInfo.NO_FIRING);
    assertThat(enc.schema().apply("timestamp").dataType(), equalTo(DataTypes.TimestampType));
    assertThat(roundTrip(enc, List.of(a, b)), containsInAnyOrder(a, b));
  }

  @Test
  void globalWindowAtTheEndOfTime() {
    Encoder<WindowedValue<Long>> enc = CoderEncoders.windowed(VarLongCoder.of(), GlobalWindow.Coder.INSTANCE);
    WindowedValue<Long> v = WindowedValues.timestampedValueInGlobalWindow(7L, BoundedWindow.TIMESTAMP_MAX_VALUE);
    Dataset<WindowedValue<Long>> ds = spark.createDataset(List.of(v), enc);
    assertThat(ds.collectAsList(), equalTo(List.of(v)));
  }

  static final class SerializableThing implements java.io.Serializable {
    final String name;

    SerializableThing(String name) {
      this.name = name;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SerializableThing && ((SerializableThing) o).name.equals(name);
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }
  }
}
