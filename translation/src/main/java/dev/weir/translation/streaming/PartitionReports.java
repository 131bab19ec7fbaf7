package dev.weir.translation.streaming;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.util.AccumulatorV2;
import scala.Tuple2;

/**
 * What each partition's task reports to the driver at the end of an epoch's job (a grouping's
 * earliest hold, a source split's new checkpoint mark and watermark), by partition index. Only
 * successful task attempts count, and a later report of the same partition replaces an earlier.
 */
final class PartitionReports<T extends Serializable> extends AccumulatorV2<Tuple2<Integer, T>, Map<Integer, T>> {
  private final HashMap<Integer, T> reports = new HashMap<>();

  @Override
  public boolean isZero() {
    return reports.isEmpty();
  }

  @Override
  public PartitionReports<T> copy() {
    PartitionReports<T> copy = new PartitionReports<>();
    copy.reports.putAll(reports);
    return copy;
  }

  @Override
  public void reset() {
    reports.clear();
  }

  @Override
  public void add(Tuple2<Integer, T> report) {
    reports.put(report._1(), report._2());
  }

  @Override
  public void merge(AccumulatorV2<Tuple2<Integer, T>, Map<Integer, T>> other) {
    reports.putAll(other.value());
  }

  @Override
  public Map<Integer, T> value() {
    return reports;
  }
}
