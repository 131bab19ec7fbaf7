package dev.weir.translation.streaming;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.Tuple2;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** RDDs whose partitions ask to run where they ran before (Spark's preferred locations). */
final class LocatedRdds {
  private LocatedRdds() {}

  /**
   * One partition per item, each preferring its location ({@link ExecutorLocation}; null: no
   * preference).
   */
  static <T> JavaRDD<T> parallelize(SparkContext sc, List<T> items, List<@Nullable String> locations, Class<T> type) {
    List<Tuple2<T, Seq<String>>> located = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      String location = locations.get(i);
      List<String> preferred = location == null ? List.of() : List.of(location);
      located.add(new Tuple2<>(items.get(i), CollectionConverters.asScala(preferred).toList()));
    }
    ClassTag<T> tag = ClassTag$.MODULE$.apply(type);
    RDD<T> rdd = sc.makeRDD(CollectionConverters.asScala(located).toList(), tag);
    return JavaRDD.fromRDD(rdd, tag);
  }
}
