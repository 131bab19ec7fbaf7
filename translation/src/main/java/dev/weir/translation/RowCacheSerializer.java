package dev.weir.translation;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.columnar.CachedBatchSerializer;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.unsafe.Platform;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction2;

/**
 * Spark's cache format for the Datasets Weir persists ({@code spark.sql.cache.serializer}, set on
 * the sessions Weir starts): rows as they are, their {@link UnsafeRow} bytes one after the other
 * in batches, instead of Spark's default compressed columns.
 *
 * <p>A Weir Dataset's columns are a Beam-encoded value and its timestamp, windows and pane: opaque
 * bytes that no query filters or projects column by column, so the columnar format buys nothing
 * for them, while building it costs a dictionary of every timestamp and a copy per column and
 * reading it back a copy per column again (Nexmark q8, whose events two transforms read: a sixth
 * of its executor time). Here a row is one copy in and none out. No batch statistics are kept,
 * so every batch is read (Spark's own filters still apply to the rows).
 */
public final class RowCacheSerializer implements CachedBatchSerializer {
  private static final long serialVersionUID = 1L;
  /** A batch is cut once it holds this many bytes (or Spark's rows per batch). */
  static final int BATCH_BYTES = 4 << 20;

  /**
   * Bytes before each row, holding its size: eight, so that every row starts eight-byte aligned,
   * as {@link UnsafeRow}'s word reads expect.
   */
  private static final int HEADER = 8;

  /** Rows of one batch: each as its size in bytes ({@link #HEADER}), then its bytes. */
  static final class RowBatch implements CachedBatch, Serializable {
    private static final long serialVersionUID = 1L;
    final int numFields;
    final int numRows;
    final byte[] data;

    RowBatch(int numFields, int numRows, byte[] data) {
      this.numFields = numFields;
      this.numRows = numRows;
      this.data = data;
    }

    @Override
    public int numRows() {
      return numRows;
    }

    @Override
    public long sizeInBytes() {
      return data.length;
    }

    Iterator<InternalRow> rows() {
      return new Iterator<>() {
        int offset;
        int read;

        @Override
        public boolean hasNext() {
          return read < numRows;
        }

        @Override
        public InternalRow next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int size = Platform.getInt(data, Platform.BYTE_ARRAY_OFFSET + offset);
          UnsafeRow row = new UnsafeRow(numFields);
          row.pointTo(data, Platform.BYTE_ARRAY_OFFSET + offset + HEADER, size);
          offset += HEADER + size;
          read++;
          return row;
        }
      };
    }
  }

  @Override
  public boolean supportsColumnarInput(Seq<Attribute> schema) {
    return false;
  }

  @Override
  public boolean supportsColumnarOutput(StructType schema) {
    return false;
  }

  @Override
  public RDD<CachedBatch> convertInternalRowToCachedBatch(
      RDD<InternalRow> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    DataType[] types = types(schema);
    int maxRows = conf.columnBatchSize();
    return input.toJavaRDD().mapPartitions((Iterator<InternalRow> rows) -> batches(rows, types, maxRows)).rdd();
  }

  private static DataType[] types(Seq<Attribute> schema) {
    List<DataType> types = new ArrayList<>();
    for (Attribute a : CollectionConverters.asJava(schema)) {
      types.add(a.dataType());
    }
    return types.toArray(new DataType[0]);
  }

  /** {@code rows} in batches of at most {@code maxRows} rows or about {@link #BATCH_BYTES} bytes. */
  static Iterator<CachedBatch> batches(Iterator<InternalRow> rows, DataType[] types, int maxRows) {
    return new Iterator<>() {
      UnsafeProjection toUnsafe;

      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public CachedBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        byte[] data = new byte[64 * 1024];
        int used = 0;
        int count = 0;
        while (rows.hasNext() && count < maxRows && used < BATCH_BYTES) {
          UnsafeRow row = unsafe(rows.next());
          int size = row.getSizeInBytes();
          if (data.length < used + HEADER + size) {
            data = Arrays.copyOf(data, Math.max(data.length * 2, used + HEADER + size));
          }
          Platform.putInt(data, Platform.BYTE_ARRAY_OFFSET + used, size);
          row.writeToMemory(data, Platform.BYTE_ARRAY_OFFSET + used + HEADER);
          used += HEADER + size;
          count++;
        }
        return new RowBatch(types.length, count, Arrays.copyOf(data, used));
      }

      private UnsafeRow unsafe(InternalRow row) {
        if (row instanceof UnsafeRow) {
          return (UnsafeRow) row;
        }
        if (toUnsafe == null) {
          toUnsafe = UnsafeProjection.create(types);
        }
        return toUnsafe.apply(row);
      }
    };
  }

  @Override
  public RDD<InternalRow> convertCachedBatchToInternalRow(
      RDD<CachedBatch> input, Seq<Attribute> cacheAttributes, Seq<Attribute> selectedAttributes, SQLConf conf) {
    boolean all = selectedAttributes.equals(cacheAttributes);
    return input
        .toJavaRDD()
        .mapPartitions(
            (Iterator<CachedBatch> batches) -> {
              Iterator<InternalRow> rows = rows(batches);
              if (all) {
                return rows;
              }
              // The scan reads some of the columns, or in another order: project each row.
              UnsafeProjection project =
                  UnsafeProjection.create((Seq<Expression>) (Seq<?>) selectedAttributes, cacheAttributes);
              return new Iterator<InternalRow>() {
                @Override
                public boolean hasNext() {
                  return rows.hasNext();
                }

                @Override
                public InternalRow next() {
                  return project.apply(rows.next());
                }
              };
            })
        .rdd();
  }

  private static Iterator<InternalRow> rows(Iterator<CachedBatch> batches) {
    return new Iterator<>() {
      Iterator<InternalRow> current = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && batches.hasNext()) {
          current = ((RowBatch) batches.next()).rows();
        }
        return current.hasNext();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
  }

  @Override
  public RDD<CachedBatch> convertColumnarBatchToCachedBatch(
      RDD<ColumnarBatch> input, Seq<Attribute> schema, StorageLevel storageLevel, SQLConf conf) {
    throw new UnsupportedOperationException("Weir's row cache takes rows only (supportsColumnarInput is false)");
  }

  @Override
  public RDD<ColumnarBatch> convertCachedBatchToColumnarBatch(
      RDD<CachedBatch> input, Seq<Attribute> cacheAttributes, Seq<Attribute> selectedAttributes, SQLConf conf) {
    throw new UnsupportedOperationException("Weir's row cache gives rows only (supportsColumnarOutput is false)");
  }

  @Override
  public scala.Function2<Object, scala.collection.Iterator<CachedBatch>, scala.collection.Iterator<CachedBatch>> buildFilter(
      Seq<Expression> predicates, Seq<Attribute> cachedAttributes) {
    return new KeepAll();
  }

  /** No batch is skipped: batches carry no statistics to skip them by. */
  private static final class KeepAll
      extends AbstractFunction2<Object, scala.collection.Iterator<CachedBatch>, scala.collection.Iterator<CachedBatch>>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public scala.collection.Iterator<CachedBatch> apply(Object partition, scala.collection.Iterator<CachedBatch> batches) {
      return batches;
    }
  }
}
