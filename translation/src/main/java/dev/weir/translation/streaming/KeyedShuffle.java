package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.encoders.CoderBytes;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.TranslationContext;
import java.util.Arrays;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.PairFunction;
import org.apache.spark.storage.StorageLevel;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * The shuffle in front of a streaming step with keyed state: every epoch a key lands in the same
 * partition (its Beam encoding's hash modulo a partition count fixed for the run), where its state
 * waits; and the one Spark job that runs such a step, once.
 */
final class KeyedShuffle {
  private KeyedShuffle() {}

  /**
   * (partition, (key bytes, element bytes)), partitioned by the first; the key is dropped from the
   * element unless {@code withKey}. With {@code sortByKey} each partition's elements come sorted
   * by key, each key's together ({@link KeyGroups}): Spark sorts them, spilling to disk if it must,
   * so that a partition need not hold its epoch's keys to group them.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static JavaPairRDD<Integer, Tuple2<byte[], byte[]>> byKey(
      JavaRDD<? extends WindowedValue<? extends KV<?, ?>>> input,
      Coder<Object> keyCoder,
      Coder<WindowedValue<Object>> elementCoder,
      boolean withKey,
      int partitions,
      boolean sortByKey) {
    JavaPairRDD<Integer, Tuple2<byte[], byte[]>> keyed =
        Rdds.mapToPair((JavaRDD<WindowedValue<KV<Object, Object>>>) (JavaRDD) input, new ByKey(keyCoder, elementCoder, withKey, partitions));
    if (!sortByKey) {
      return keyed.partitionBy(new ByPartitionIndex(partitions));
    }
    JavaPairRDD<SortKey, byte[]> sorted =
        Rdds.mapToPair(keyed, (Tuple2<Integer, Tuple2<byte[], byte[]>> e) -> new Tuple2<>(new SortKey(e._1(), e._2()._1()), e._2()._2()))
            .repartitionAndSortWithinPartitions(new BySortKeyPartition(partitions), SortKey.ORDER);
    return Rdds.mapToPair(sorted, (Tuple2<SortKey, byte[]> e) -> new Tuple2<>(e._1().partition, new Tuple2<>(e._1().key, e._2())));
  }

  /** A key's bytes with its partition, for a shuffle sorted by key. */
  private record SortKey(int partition, byte[] key) implements java.io.Serializable {
    static final java.util.Comparator<SortKey> ORDER = new ByBytes();
  }

  private static final class ByBytes implements java.util.Comparator<SortKey>, java.io.Serializable {
    @Override
    public int compare(SortKey a, SortKey b) {
      return Arrays.compareUnsigned(a.key(), b.key());
    }
  }

  private static final class BySortKeyPartition extends Partitioner {
    private final int partitions;

    BySortKeyPartition(int partitions) {
      this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
      return partitions;
    }

    @Override
    public int getPartition(Object key) {
      return ((SortKey) key).partition();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BySortKeyPartition && ((BySortKeyPartition) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
      return partitions;
    }
  }

  /**
   * What a partition's task reports: its earliest hold and pending timers, how many elements it
   * emitted, and where it ran (and its state now is).
   */
  record PartitionReport(long hold, long nextEventTimer, long nextProcessingTimer, long emitted, String location)
      implements java.io.Serializable {
    static PartitionReport of(dev.weir.translation.streaming.state.KeyedPartition state, long emitted) {
      return new PartitionReport(
          state.earliestHold(), state.nextEventTimer(), state.nextProcessingTimer(), emitted, ExecutorLocation.here());
    }
  }

  /**
   * What a keyed step's partitions held after the last epoch it ran in (kept between epochs and
   * committed with them), so that an epoch can tell that it has nothing to do: no element and no
   * timer due. Such an epoch runs no job for the step, and its partitions' state stays at the
   * epoch it last ran in ({@link #stateEpoch}).
   */
  static final class LastRun {
    private static final StepProgress<LastRun> KIND = StepProgress.of("keyed state", LastRun::write, LastRun::read, LastRun::new);

    /** -1: not known (a run restored from a commit that did not record it): the step runs. */
    long epoch = -1;
    long hold;
    long nextEventTimer;
    long nextProcessingTimer;
    /** Elements the step emitted in the epoch it last ran in. */
    long emitted;

    private void write(java.io.DataOutputStream out) throws java.io.IOException {
      out.writeLong(epoch);
      out.writeLong(hold);
      out.writeLong(nextEventTimer);
      out.writeLong(nextProcessingTimer);
      out.writeLong(emitted);
    }

    private static LastRun read(java.io.DataInputStream in) throws java.io.IOException {
      LastRun r = new LastRun();
      r.epoch = in.readLong();
      r.hold = in.readLong();
      r.nextEventTimer = in.readLong();
      r.nextProcessingTimer = in.readLong();
      r.emitted = in.readLong();
      return r;
    }

    /**
     * The current step's, kept between epochs under a name of its own: a step may keep other
     * progress too (a stateful DoFn's elements waiting for side inputs).
     */
    static LastRun of(StreamingRun run, String stepName) {
      return run.progressOf(stepName, KIND);
    }

    /**
     * The earliest event-time timer that keyed step {@code stepName} reported after the last
     * epoch it ran in; {@code Long.MAX_VALUE} if it is no keyed step or has not run yet.
     */
    static long nextEventTimer(StreamingRun run, String stepName) {
      LastRun last = run.findProgressOf(stepName, KIND);
      return last == null || last.epoch < 0 ? Long.MAX_VALUE : last.nextEventTimer;
    }

    /** The epoch whose state the partitions open in {@code epoch}. */
    long stateEpoch(long epoch) {
      return this.epoch >= 0 ? this.epoch : epoch - 1;
    }

    /**
     * Whether the step has nothing to do: no element (its input is known empty), the input
     * watermark short of its earliest event-time timer and of the end of time, and, if {@code
     * clock} is given (processing-time timers fire), the clock short of the earliest
     * processing-time timer.
     */
    private boolean nothingDue(boolean inputEmpty, Instant inputWatermark, @Nullable Instant clock) {
      return epoch >= 0
          && inputEmpty
          && inputWatermark.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)
          && inputWatermark.getMillis() < nextEventTimer
          && (clock == null || clock.getMillis() < nextProcessingTimer);
    }

    /**
     * Whether the current step has nothing to do in this epoch ({@link #nothingDue}, at the
     * step's processing time if processing-time timers fire); if so its outputs are known empty.
     */
    boolean skipsEpoch(TranslationContext context) {
      StreamingRun run = StreamingRun.of(context);
      boolean processingTimers =
          context.policies().processingTimeTimers() == TimePolicies.ProcessingTimeTimers.ALLOW;
      if (!nothingDue(context.isEmpty(context.input()), run.inputWatermark(), processingTimers ? run.stepProcessingTime() : null)) {
        return false;
      }
      context.putOutputsEmpty();
      return true;
    }

    /** After {@link #runOnce}: whether the step emitted nothing; if so its outputs are known empty. */
    boolean emittedNothing(TranslationContext context) {
      if (emitted > 0) {
        return false;
      }
      context.putOutputsEmpty();
      return true;
    }

    /** The output watermark of an epoch with nothing due: the input's, held by the same holds. */
    Instant outputWatermark(Instant inputWatermark) {
      return hold < inputWatermark.getMillis() ? new Instant(hold) : inputWatermark;
    }
  }

  /**
   * {@code result} with each keyed partition preferring the executor that ran it in the epoch
   * before, where its state is in memory ({@link PinnedRdd}).
   */
  static JavaRDD<byte[]> pinned(TranslationContext context, JavaRDD<byte[]> result) {
    return PinnedRdd.of(result, StreamingRun.of(context).partitionLocations(context.stepName()));
  }

  /**
   * Runs {@code result} in one Spark job, keeping it for the epoch: computing it changes state,
   * so it must be computed exactly once. Then {@link #settle}s what the partitions reported, and
   * returns {@code last}.
   */
  static LastRun runOnce(
      TranslationContext context,
      JavaRDD<byte[]> result,
      PartitionReports<PartitionReport> reports,
      int partitions,
      LastRun last) {
    StreamingRun run = StreamingRun.of(context);
    result.persist(StorageLevel.MEMORY_AND_DISK());
    run.unpersistAtEpochEnd(result);
    context.session().sparkContext().setJobDescription(context.stepName());
    Rdds.count(result);
    return settle(run, context.stepName(), reports, partitions, last);
  }

  /**
   * Lets the epoch's leaves job run the current keyed step's partitions, on the way to the steps
   * after it ({@link StreamingRun#runsWithLeaves}): until that job ran, the step stands where its
   * last epoch left it; then it {@link #settle}s what its partitions reported and reports the
   * watermark they reached, and the steps after it follow.
   */
  static void settleAfterLeaves(
      TranslationContext context, PartitionReports<PartitionReport> reports, int partitions, LastRun last) {
    StreamingRun run = StreamingRun.of(context);
    String stepName = context.stepName();
    run.reportOutputWatermark(run.outputWatermarkBefore());
    run.afterLeaves(() -> {
      settle(run, stepName, reports, partitions, last);
      run.reportOutputWatermark(last.outputWatermark(run.inputWatermark()));
    });
  }

  /**
   * Records in {@code last} what keyed step {@code stepName}'s partitions hold now, once the job
   * that ran them all ended (their earliest hold holds the step's output watermark: {@link
   * LastRun#outputWatermark}) and what they emitted, and returns it; notes where each partition
   * ran, for the next epoch.
   */
  static LastRun settle(
      StreamingRun run, String stepName, PartitionReports<PartitionReport> reports, int partitions, LastRun last) {
    Map<Integer, PartitionReport> reported = reports.value();
    if (reported.size() != partitions) {
      throw new IllegalStateException(
          "Step '" + stepName + "': " + reported.size() + " of " + partitions + " partitions reported");
    }
    last.epoch = run.epoch();
    last.hold = Long.MAX_VALUE;
    last.nextEventTimer = Long.MAX_VALUE;
    last.nextProcessingTimer = Long.MAX_VALUE;
    last.emitted = 0;
    for (Map.Entry<Integer, PartitionReport> r : reported.entrySet()) {
      PartitionReport report = r.getValue();
      last.hold = Math.min(last.hold, report.hold());
      last.nextEventTimer = Math.min(last.nextEventTimer, report.nextEventTimer());
      last.nextProcessingTimer = Math.min(last.nextProcessingTimer, report.nextProcessingTimer());
      last.emitted += report.emitted();
      run.notePartitionLocation(stepName, r.getKey(), report.location());
    }
    if (last.emitted > 0) {
      run.noteActivity();
    }
    return last;
  }

  private static final class ByKey
      implements PairFunction<WindowedValue<KV<Object, Object>>, Integer, Tuple2<byte[], byte[]>> {
    private final CoderBytes<Object> keyCoder;
    private final CoderBytes<WindowedValue<Object>> elementCoder;
    private final boolean withKey;
    private final int partitions;

    ByKey(Coder<Object> keyCoder, Coder<WindowedValue<Object>> elementCoder, boolean withKey, int partitions) {
      this.keyCoder = CoderBytes.of(keyCoder);
      this.elementCoder = CoderBytes.of(elementCoder);
      this.withKey = withKey;
      this.partitions = partitions;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Tuple2<Integer, Tuple2<byte[], byte[]>> call(WindowedValue<KV<Object, Object>> e) throws Exception {
      byte[] key = keyCoder.encode(e.getValue().getKey());
      WindowedValue<Object> element = withKey ? (WindowedValue) e : e.withValue(e.getValue().getValue());
      return new Tuple2<>(
          Math.floorMod(Arrays.hashCode(key), partitions),
          new Tuple2<>(key, elementCoder.encode(element)));
    }
  }

  /** The partition is computed with the key, from its Beam encoding; this only reads it. */
  private static final class ByPartitionIndex extends Partitioner {
    private final int partitions;

    ByPartitionIndex(int partitions) {
      this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
      return partitions;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ByPartitionIndex && ((ByPartitionIndex) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
      return partitions;
    }
  }
}
