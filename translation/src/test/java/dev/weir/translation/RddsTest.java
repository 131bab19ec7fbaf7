package dev.weir.translation;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/** Weir's RDD operations answer as Spark's own do, on an embedded Spark. */
class RddsTest {
  private static JavaRDD<Integer> numbers(int n, int partitions) {
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(i);
    }
    return JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext()).parallelize(list, partitions);
  }

  @Test
  void elementFunctionsSeeEveryElement() {
    JavaRDD<Integer> in = numbers(10, 3);
    assertThat(Rdds.collect(Rdds.map(in, i -> i * 10)), equalTo(List.of(0, 10, 20, 30, 40, 50, 60, 70, 80, 90)));
    assertThat(Rdds.collect(Rdds.filter(in, i -> i % 3 == 0)), equalTo(List.of(0, 3, 6, 9)));
    assertThat(
        Rdds.collect(Rdds.flatMap(in, i -> i % 2 == 0 ? List.of(i, i).iterator() : List.<Integer>of().iterator())),
        equalTo(List.of(0, 0, 2, 2, 4, 4, 6, 6, 8, 8)));
    assertThat(Rdds.count(Rdds.filter(in, i -> i > 6)), is(3L));
  }

  @Test
  void aPartitionFunctionSeesItsPartitionAndIndex() {
    // parallelize cuts 6 elements into 3 slices of 2, in order.
    JavaRDD<String> described =
        Rdds.mapPartitionsWithIndex(
            numbers(6, 3),
            (Integer index, Iterator<Integer> partition) -> {
              StringBuilder s = new StringBuilder(index + ":");
              partition.forEachRemaining(s::append);
              return List.of(s.toString()).iterator();
            },
            false);
    assertThat(Rdds.collect(described), equalTo(List.of("0:01", "1:23", "2:45")));
  }

  @Test
  void onlyAFunctionThatKeepsKeysKeepsThePartitioner() {
    JavaPairRDD<Integer, Integer> byKey =
        Rdds.mapToPair(numbers(8, 2), i -> new Tuple2<>(i % 4, i)).partitionBy(new HashPartitioner(4));
    assertThat(Rdds.filter(byKey.rdd().toJavaRDD(), e -> e._2() > 3).rdd().partitioner().isDefined(), is(true));
    assertThat(Rdds.mapPartitions(byKey, (Iterator<Tuple2<Integer, Integer>> p) -> p, true).rdd().partitioner().get(),
        equalTo(byKey.rdd().partitioner().get()));
    assertThat(Rdds.map(byKey, e -> e).rdd().partitioner().isDefined(), is(false));
    assertThat(Rdds.collect(Rdds.filter(byKey.rdd().toJavaRDD(), e -> e._1() == 1)),
        containsInAnyOrder(new Tuple2<>(1, 1), new Tuple2<>(1, 5)));
  }

  @Test
  void forEachPartitionRunsOnEveryPartition() {
    LongAccumulator seen = TestSpark.session().sparkContext().longAccumulator();
    Rdds.foreachPartition(numbers(7, 3), p -> p.forEachRemaining(i -> seen.add(i)));
    assertThat(seen.value(), is(21L));
  }

  @Test
  void aFunctionsExceptionFailsTheJobAsItWasThrown() {
    JavaRDD<Integer> failing =
        Rdds.map(numbers(5, 2), i -> {
          if (i == 3) {
            throw new IOException("cannot read element " + i);
          }
          return i;
        });
    SparkException e = assertThrows(SparkException.class, () -> Rdds.count(failing));
    // Not wrapped on its way: the task failed with the IOException itself.
    assertThat(e.getCause(), instanceOf(IOException.class));
    assertThat(e.getCause().getMessage(), equalTo("cannot read element 3"));
  }

  /** Holds what Java cannot serialize. */
  private static final class Unserializable {}

  private static final class Capturing implements Function<Integer, Integer> {
    private final Object held = new Unserializable();

    @Override
    public Integer call(Integer i) {
      return held.hashCode() + i;
    }
  }

  @Test
  void anUnserializableFunctionFailsItsJobNamingTheClass() {
    // Nothing is cleaned or checked while the RDD is built, where Spark's map would throw: the
    // job that would ship it fails instead, with Spark's own message.
    JavaRDD<Integer> built = Rdds.map(numbers(4, 2), new Capturing());
    SparkException e = assertThrows(SparkException.class, () -> Rdds.collect(built));
    assertThat(e.getMessage(), containsString("Task not serializable"));
    assertThat(e.getMessage(), containsString(Unserializable.class.getName()));
  }
}
