package dev.weir.translation;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.Partition;
import org.apache.spark.Partitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaRDDLike;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.PairFunction;
import org.apache.spark.api.java.function.VoidFunction;
import org.apache.spark.rdd.RDD;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * The RDD operations a streaming epoch builds and runs, handing Spark no closure to clean.
 *
 * <p>{@code JavaRDD.map}, {@code mapPartitions}, {@code count} and the rest pass Spark a Scala
 * lambda, and Spark's {@code ClosureCleaner} reads the bytecode of the class that declares it
 * ({@code RDD}, {@code JavaRDDLike}: large classes) to look for return statements, then
 * Java-serializes the function to check it can. A streaming epoch builds its RDDs anew, and a
 * profile of the driver of Nexmark q5 at 10,000 events/s found three quarters of its thread in
 * the cleaner. Weir's functions are static classes that capture what they need in
 * fields: there is nothing to clean. Here they run in Weir's own RDD, {@link PartitionsRdd},
 * whose tasks call them directly, and jobs run through {@link SparkContext#runJob} with named
 * function classes, which the cleaner passes over. An unserializable function fails when its
 * task is serialized, in the job that runs it, instead of when the RDD is built.
 */
public final class Rdds {
  private Rdds() {}

  /** What a task of {@link PartitionsRdd} runs: its partition's index and input to its output. */
  @FunctionalInterface
  public interface PartitionFunction<T, U> extends Serializable {
    Iterator<U> apply(int partition, Iterator<T> input) throws Exception;
  }

  /**
   * {@code in}'s partitions through {@code f}; with {@code preservesPartitioning} the result keeps
   * {@code in}'s partitioner ({@code f} must leave each element in its partition's keys).
   */
  public static <T, U> JavaRDD<U> mapPartitions(
      JavaRDDLike<T, ?> in, PartitionFunction<T, U> f, boolean preservesPartitioning) {
    return JavaRDD.fromRDD(new PartitionsRdd<>(in.rdd(), f, preservesPartitioning, anyTag()), anyTag());
  }

  /** As {@link JavaRDD#mapPartitions(FlatMapFunction, boolean)}. */
  public static <T, U> JavaRDD<U> mapPartitions(
      JavaRDDLike<T, ?> in, FlatMapFunction<Iterator<T>, U> f, boolean preservesPartitioning) {
    return mapPartitions(in, new EachPartition<>(f), preservesPartitioning);
  }

  /** As {@link JavaRDD#mapPartitionsWithIndex}. */
  public static <T, U> JavaRDD<U> mapPartitionsWithIndex(
      JavaRDDLike<T, ?> in, Function2<Integer, Iterator<T>, Iterator<U>> f, boolean preservesPartitioning) {
    return mapPartitions(in, new EachIndexedPartition<>(f), preservesPartitioning);
  }

  /** As {@link JavaRDD#map}. */
  public static <T, U> JavaRDD<U> map(JavaRDDLike<T, ?> in, Function<T, U> f) {
    return mapPartitions(in, new EachElement<>(f), false);
  }

  /** As {@link JavaRDD#flatMap}. */
  public static <T, U> JavaRDD<U> flatMap(JavaRDDLike<T, ?> in, FlatMapFunction<T, U> f) {
    return mapPartitions(in, new EachElementToMany<>(f), false);
  }

  /** As {@link JavaRDD#filter}: keeps {@code in}'s partitioner. */
  public static <T> JavaRDD<T> filter(JavaRDD<T> in, Function<T, Boolean> keep) {
    return mapPartitions(in, new Kept<>(keep), true);
  }

  /** As {@link JavaRDD#mapToPair}. */
  public static <T, K, V> JavaPairRDD<K, V> mapToPair(JavaRDDLike<T, ?> in, PairFunction<T, K, V> f) {
    return JavaPairRDD.fromJavaRDD(map(in, new Paired<>(f)));
  }

  /** As {@link JavaRDD#count}: one job. */
  public static long count(JavaRDD<?> rdd) {
    long n = 0;
    for (Object partition : runJob(rdd.rdd(), new PartitionSize<>())) {
      n += (Long) partition;
    }
    return n;
  }

  /** As {@link JavaRDD#collect}: one job. */
  @SuppressWarnings("unchecked")
  public static <T> List<T> collect(JavaRDD<T> rdd) {
    List<T> all = new ArrayList<>();
    for (Object partition : runJob(rdd.rdd(), new PartitionList<T>())) {
      all.addAll((List<T>) partition);
    }
    return all;
  }

  /** As {@link JavaRDD#foreachPartition}: one job. */
  public static <T> void foreachPartition(JavaRDD<T> rdd, VoidFunction<Iterator<T>> f) {
    runJob(rdd.rdd(), new ForEachPartition<>(f));
  }

  /** Computes every partition of {@code rdd} and drops its elements: one job. */
  public static <T> void drain(JavaRDD<T> rdd) {
    foreachPartition(rdd, new Drain<>());
  }

  private static final class Drain<T> implements VoidFunction<Iterator<T>> {
    @Override
    public void call(Iterator<T> partition) {
      while (partition.hasNext()) {
        partition.next();
      }
    }
  }

  /**
   * Through the overload that takes {@code (TaskContext, Iterator) => U}: the one that takes
   * {@code Iterator => U} wraps it in a lambda of {@link SparkContext}'s own, and Spark's cleaner
   * then reads SparkContext's bytecode on every job (the larger part of the epoch driver's thread
   * in a profile of q5 at 10,000 events/s after the RDDs themselves stopped being cleaned).
   */
  private static <T> Object[] runJob(RDD<T> rdd, AbstractFunction2<TaskContext, scala.collection.Iterator<T>, ?> f) {
    return (Object[]) rdd.sparkContext().runJob(rdd, f, anyTag());
  }

  @SuppressWarnings("unchecked")
  private static <T> ClassTag<T> anyTag() {
    return (ClassTag<T>) ClassTag$.MODULE$.AnyRef();
  }

  /** Rethrows {@code t} as it is: a task fails with the exception its function threw. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException rethrow(Throwable t) throws E {
    throw (E) t;
  }

  /** Weir's RDD: one parent, each task running {@link PartitionFunction} on its partition. */
  private static final class PartitionsRdd<T, U> extends RDD<U> {
    private final RDD<T> parent;
    private final PartitionFunction<T, U> f;
    private final boolean preservesPartitioning;

    PartitionsRdd(RDD<T> parent, PartitionFunction<T, U> f, boolean preservesPartitioning, ClassTag<U> tag) {
      super(parent, tag);
      this.parent = parent;
      this.f = f;
      this.preservesPartitioning = preservesPartitioning;
    }

    @Override
    public scala.collection.Iterator<U> compute(Partition split, TaskContext context) {
      Iterator<T> input = CollectionConverters.asJava(parent.iterator(split, context));
      try {
        return CollectionConverters.asScala(f.apply(split.index(), input));
      } catch (Exception e) {
        throw Rdds.<RuntimeException>rethrow(e);
      }
    }

    @Override
    public Partition[] getPartitions() {
      return parent.partitions();
    }

    @Override
    public Option<Partitioner> partitioner() {
      // Guarded in case Spark's RDD constructor asks before this constructor set the fields.
      return preservesPartitioning && parent != null ? parent.partitioner() : Option.empty();
    }
  }

  private static final class EachPartition<T, U> implements PartitionFunction<T, U> {
    private final FlatMapFunction<Iterator<T>, U> f;

    EachPartition(FlatMapFunction<Iterator<T>, U> f) {
      this.f = f;
    }

    @Override
    public Iterator<U> apply(int partition, Iterator<T> input) throws Exception {
      return f.call(input);
    }
  }

  private static final class EachIndexedPartition<T, U> implements PartitionFunction<T, U> {
    private final Function2<Integer, Iterator<T>, Iterator<U>> f;

    EachIndexedPartition(Function2<Integer, Iterator<T>, Iterator<U>> f) {
      this.f = f;
    }

    @Override
    public Iterator<U> apply(int partition, Iterator<T> input) throws Exception {
      return f.call(partition, input);
    }
  }

  private static final class EachElement<T, U> implements PartitionFunction<T, U> {
    private final Function<T, U> f;

    EachElement(Function<T, U> f) {
      this.f = f;
    }

    @Override
    public Iterator<U> apply(int partition, Iterator<T> input) {
      return new Iterator<U>() {
        @Override
        public boolean hasNext() {
          return input.hasNext();
        }

        @Override
        public U next() {
          try {
            return f.call(input.next());
          } catch (Exception e) {
            throw Rdds.<RuntimeException>rethrow(e);
          }
        }
      };
    }
  }

  private static final class EachElementToMany<T, U> implements PartitionFunction<T, U> {
    private final FlatMapFunction<T, U> f;

    EachElementToMany(FlatMapFunction<T, U> f) {
      this.f = f;
    }

    @Override
    public Iterator<U> apply(int partition, Iterator<T> input) {
      return new Iterator<U>() {
        private Iterator<U> current = java.util.Collections.emptyIterator();

        @Override
        public boolean hasNext() {
          try {
            while (!current.hasNext() && input.hasNext()) {
              current = f.call(input.next());
            }
          } catch (Exception e) {
            throw Rdds.<RuntimeException>rethrow(e);
          }
          return current.hasNext();
        }

        @Override
        public U next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          return current.next();
        }
      };
    }
  }

  private static final class Paired<T, K, V> implements Function<T, Tuple2<K, V>> {
    private final PairFunction<T, K, V> f;

    Paired(PairFunction<T, K, V> f) {
      this.f = f;
    }

    @Override
    public Tuple2<K, V> call(T element) throws Exception {
      return f.call(element);
    }
  }

  private static final class Kept<T> implements PartitionFunction<T, T> {
    private final Function<T, Boolean> keep;

    Kept(Function<T, Boolean> keep) {
      this.keep = keep;
    }

    @Override
    public Iterator<T> apply(int partition, Iterator<T> input) {
      return new Iterator<T>() {
        private T next;
        private boolean ready;

        @Override
        public boolean hasNext() {
          try {
            while (!ready && input.hasNext()) {
              T candidate = input.next();
              if (keep.call(candidate)) {
                next = candidate;
                ready = true;
              }
            }
          } catch (Exception e) {
            throw Rdds.<RuntimeException>rethrow(e);
          }
          return ready;
        }

        @Override
        public T next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          ready = false;
          T result = next;
          next = null;
          return result;
        }
      };
    }
  }

  private static final class PartitionSize<T> extends AbstractFunction2<TaskContext, scala.collection.Iterator<T>, Long>
      implements Serializable {
    @Override
    public Long apply(TaskContext task, scala.collection.Iterator<T> partition) {
      long n = 0;
      while (partition.hasNext()) {
        partition.next();
        n++;
      }
      return n;
    }
  }

  private static final class PartitionList<T> extends AbstractFunction2<TaskContext, scala.collection.Iterator<T>, List<T>>
      implements Serializable {
    @Override
    public List<T> apply(TaskContext task, scala.collection.Iterator<T> partition) {
      List<T> list = new ArrayList<>();
      while (partition.hasNext()) {
        list.add(partition.next());
      }
      return list;
    }
  }

  private static final class ForEachPartition<T> extends AbstractFunction2<TaskContext, scala.collection.Iterator<T>, BoxedUnit>
      implements Serializable {
    private final VoidFunction<Iterator<T>> f;

    ForEachPartition(VoidFunction<Iterator<T>> f) {
      this.f = f;
    }

    @Override
    public BoxedUnit apply(TaskContext task, scala.collection.Iterator<T> partition) {
      try {
        f.call(CollectionConverters.asJava(partition));
      } catch (Exception e) {
        throw Rdds.<RuntimeException>rethrow(e);
      }
      return BoxedUnit.UNIT;
    }
  }
}
