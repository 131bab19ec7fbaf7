package dev.weir.translation.batch;

import org.apache.spark.Partitioner;

/**
 * A partitioner of byte-array shuffle keys ({@link HashSortedShuffle#sortedByKey}): how many
 * partitions, and equal to another of its kind with as many, so that Spark sees two shuffles
 * partitioned alike; subclasses say which partition a key's bytes go to.
 */
abstract class BytesPartitioner extends Partitioner {
  private final int partitions;

  BytesPartitioner(int partitions) {
    this.partitions = partitions;
  }

  /** The partition of {@code key}, from 0 to {@code partitions - 1}. */
  abstract int partitionOf(byte[] key);

  @Override
  public final int numPartitions() {
    return partitions;
  }

  @Override
  public final int getPartition(Object key) {
    return partitionOf((byte[]) key);
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ((BytesPartitioner) o).partitions == partitions;
  }

  @Override
  public final int hashCode() {
    return 31 * getClass().hashCode() + partitions;
  }
}
