package dev.weir.translation.streaming;

import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;

/**
 * The partitions of its parent, each asking to run on an executor of the caller's choosing
 * (Spark's preferred locations): a keyed partition's task goes back to the executor whose memory
 * holds its state, as Spark's own state store schedules its partitions. A partition without a
 * location, or whose executor is busy past {@code spark.locality.wait} or gone, runs elsewhere,
 * and reads its state back from the checkpoint dir.
 */
final class PinnedRdd<T> extends RDD<T> {
  private final RDD<T> parent;
  private final String[] locations;

  private PinnedRdd(RDD<T> parent, String[] locations, ClassTag<T> tag) {
    super(parent, tag);
    this.parent = parent;
    this.locations = locations.clone();
  }

  /** {@code rdd} with partition i preferring {@code locations[i]} (null or absent: no preference). */
  static <T> JavaRDD<T> of(JavaRDD<T> rdd, String[] locations) {
    return JavaRDD.fromRDD(new PinnedRdd<>(rdd.rdd(), locations, rdd.classTag()), rdd.classTag());
  }

  @Override
  public Iterator<T> compute(Partition split, TaskContext context) {
    return parent.iterator(split, context);
  }

  @Override
  public Partition[] getPartitions() {
    return parent.partitions();
  }

  @Override
  public Seq<String> getPreferredLocations(Partition split) {
    int i = split.index();
    if (i < locations.length && locations[i] != null) {
      return CollectionConverters.asScala(java.util.List.of(locations[i])).toList();
    }
    return parent.preferredLocations(split);
  }
}
