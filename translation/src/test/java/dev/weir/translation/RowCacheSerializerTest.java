package dev.weir.translation;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.Tuple3;

class RowCacheSerializerTest {
  private static final DataType[] TYPES = {DataTypes.LongType, DataTypes.StringType, DataTypes.BinaryType};

  private static UnsafeRow row(long i) {
    // Rows of different sizes (the string grows), so that offsets within a batch vary.
    return UnsafeProjection.create(TYPES)
        .apply(
            InternalRow.apply(
                scala.jdk.javaapi.CollectionConverters.asScala(
                        List.<Object>of(i, UTF8String.fromString("v".repeat((int) i)), new byte[] {(byte) i}))
                    .toSeq()))
        .copy();
  }

  @Test
  void batchesHoldEveryRowInOrderAcrossBatchBoundaries() {
    List<InternalRow> rows = new ArrayList<>();
    for (long i = 0; i < 10; i++) {
      rows.add(row(i));
    }
    Iterator<CachedBatch> batches = RowCacheSerializer.batches(rows.iterator(), TYPES, 3);
    List<Integer> sizes = new ArrayList<>();
    List<String> read = new ArrayList<>();
    while (batches.hasNext()) {
      RowCacheSerializer.RowBatch batch = (RowCacheSerializer.RowBatch) batches.next();
      sizes.add(batch.numRows());
      batch.rows().forEachRemaining(r -> read.add(r.getLong(0) + ":" + r.getUTF8String(1) + ":" + r.getBinary(2)[0]));
    }
    assertThat(sizes, contains(3, 3, 3, 1));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add(i + ":" + "v".repeat(i) + ":" + i);
    }
    assertThat(read, is(expected));
  }

  @Test
  void cachedDatasetReadsBackWholeAndByColumnEvenFromDisk() {
    assertThat(
        TestSpark.session().conf().get("spark.sql.cache.serializer"), is(RowCacheSerializer.class.getName()));
    List<Tuple3<Long, String, byte[]>> input = new ArrayList<>();
    for (long i = 0; i < 1000; i++) {
      input.add(new Tuple3<>(i, "s" + i, new byte[] {(byte) i, 7}));
    }
    Dataset<Tuple3<Long, String, byte[]>> ds =
        TestSpark.session()
            .createDataset(input, Encoders.tuple(Encoders.LONG(), Encoders.STRING(), Encoders.BINARY()))
            .persist(StorageLevel.DISK_ONLY());
    try {
      List<String> whole = new ArrayList<>();
      for (Tuple3<Long, String, byte[]> t : ds.collectAsList()) {
        whole.add(t._1() + ":" + t._2() + ":" + t._3()[0] + "," + t._3()[1]);
      }
      List<String> expected = new ArrayList<>();
      for (Tuple3<Long, String, byte[]> t : input) {
        expected.add(t._1() + ":" + t._2() + ":" + t._3()[0] + "," + t._3()[1]);
      }
      assertThat(whole, is(expected));
      assertThat(ds.queryExecution().executedPlan().toString(), containsString("InMemoryTableScan"));
      // Two of the three columns, in another order: the scan projects the cached rows.
      List<Row> some = ds.select(functions.col("_2"), functions.col("_1")).where(functions.col("_1").equalTo(999)).collectAsList();
      assertThat(some.size(), is(1));
      assertThat(some.get(0).getString(0) + "/" + some.get(0).getLong(1), is("s999/999"));
    } finally {
      ds.unpersist(true);
    }
  }
}
