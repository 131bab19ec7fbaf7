package dev.weir.translation.streaming;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.metrics.BundleMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * An unbounded read ({@code Read.Unbounded}, or the primitive Beam converts its splittable form
 * back to). The source is split once, on the driver, into about one split per core; every epoch
 * each split is a Spark task that resumes from its last checkpoint mark, reads a bounded slice
 * ({@link UnboundedSplitReader}) and reports its new mark and watermark. The source's watermark
 * is the minimum over its splits; a split whose watermark reaches the end of time is done, and
 * one that read nothing for {@code --idleTimeoutMillis} is idle and leaves the minimum.
 * Marks are finalized once the epoch's jobs have run and the epoch is committed.
 */
public final class UnboundedReadTranslator<T> implements TransformTranslator<PTransform<?, ?>> {

  /** The splits of a source and where each one is: checkpointed with every epoch. */
  private static final class Splits implements java.io.Serializable {
    ArrayList<UnboundedSource<Object, ?>> sources;
    byte[][] marks;
    Instant[] watermarks;
    /** Processing time of each split's last record (or of the first epoch). */
    long[] lastData;
    /**
     * Whether the marks were finalized: not yet when they are committed, so a pipeline resumed
     * from that commit finalizes them first.
     */
    boolean finalized = true;
  }

  @SuppressWarnings("unchecked")
  private static UnboundedSource<Object, ?> source(PTransform<?, ?> transform) {
    if (transform instanceof SplittableParDo.PrimitiveUnboundedRead) {
      return (UnboundedSource<Object, ?>) ((SplittableParDo.PrimitiveUnboundedRead<?>) transform).getSource();
    }
    return (UnboundedSource<Object, ?>) ((Read.Unbounded<?>) transform).getSource();
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(PTransform<?, ?> transform, TranslationContext context) {
    StreamingRun run = context.streaming();
    PCollection<Object> out = context.output();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(context.session().sparkContext());
    Splits splits = run.progress(Splits::new);
    if (splits.sources == null) {
      try {
        UnboundedSource<Object, ?> source = source(transform);
        splits.sources =
            new ArrayList<>(
                (List) BundleMetrics.onDriver(
                    context.metrics(), context.stepName(), () -> source.split(jsc.defaultParallelism(), context.options().get())));
      } catch (Exception e) {
        throw new IllegalStateException("Step '" + context.stepName() + "': could not split its source", e);
      }
      if (splits.sources.isEmpty()) {
        splits.sources = new ArrayList<>(List.of(source(transform)));
      }
      splits.marks = new byte[splits.sources.size()][];
      splits.watermarks = new Instant[splits.sources.size()];
      java.util.Arrays.fill(splits.watermarks, BoundedWindow.TIMESTAMP_MIN_VALUE);
      splits.lastData = new long[splits.sources.size()];
      java.util.Arrays.fill(splits.lastData, run.processingTime().getMillis());
    }

    if (!splits.finalized) {
      // Resumed from a commit whose marks may not have been finalized before the pipeline stopped.
      List<Tuple2<UnboundedSource<Object, ?>, byte[]>> committed = new ArrayList<>();
      for (int i = 0; i < splits.sources.size(); i++) {
        committed.add(new Tuple2<>(splits.sources.get(i), splits.marks[i]));
      }
      finalizeMarks(context.stepName(), committed);
      splits.finalized = true;
    }
    if (run.draining()) {
      // Drained: nothing more is read, and the source says it is done.
      java.util.Arrays.fill(splits.watermarks, BoundedWindow.TIMESTAMP_MAX_VALUE);
    }
    // An epoch run again after a crash reads exactly what the interrupted attempt read, so that
    // it emits the same panes again (see StreamingRun#plannedReads).
    long[] planned = run.plannedReads();
    List<UnboundedSplitReader.Slice> slices = new ArrayList<>();
    for (int i = 0; i < splits.sources.size(); i++) {
      boolean skip = planned != null && (i >= planned.length || planned[i] == 0);
      if (splits.watermarks[i].isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE) && !skip) {
        slices.add(new UnboundedSplitReader.Slice(i, splits.sources.get(i), splits.marks[i], planned == null ? -1 : planned[i]));
      }
    }
    PartitionReports<UnboundedSplitReader.Report> reports = new PartitionReports<>();
    context.session().sparkContext().register(reports);
    JavaRDD<byte[]> read =
        jsc.parallelize(slices, Math.max(1, slices.size()))
            .mapPartitions(
                new UnboundedSplitReader(
                    context.metrics(),
                    context.stepName(),
                    context.options(),
                    run.settings(),
                    (org.apache.beam.sdk.coders.Coder) WindowedValues.getFullCoder(
                        out.getCoder(), TranslationContext.windowCoder(out)),
                    reports));
    read.persist(StorageLevel.MEMORY_AND_DISK());
    run.unpersistAtEpochEnd(read);
    context.session().sparkContext().setJobDescription(context.stepName());
    if (read.count() > 0) {
      run.noteActivity();
    }

    List<Tuple2<UnboundedSource<Object, ?>, byte[]>> toFinalize = new ArrayList<>();
    long[] recordsRead = new long[splits.sources.size()];
    for (Map.Entry<Integer, UnboundedSplitReader.Report> r : reports.value().entrySet()) {
      int split = r.getKey();
      recordsRead[split] = r.getValue().records();
      splits.marks[split] = r.getValue().mark();
      Instant wm = new Instant(r.getValue().watermarkMillis());
      if (wm.isAfter(splits.watermarks[split])) {
        splits.watermarks[split] = wm;
      }
      if (r.getValue().records() > 0) {
        splits.lastData[split] = run.processingTime().getMillis();
      }
      toFinalize.add(new Tuple2<>(splits.sources.get(split), r.getValue().mark()));
    }
    run.recordReads(recordsRead);
    // The source's watermark: the least of its active splits'. A split that read nothing for
    // --idleTimeoutMillis is idle and leaves the minimum until it reads again; if every split
    // still running is idle, the source is idle and its watermark stays where it was.
    long idleTimeout = run.settings().idleTimeoutMillis();
    Instant watermark = null;
    boolean running = false;
    for (int i = 0; i < splits.watermarks.length; i++) {
      boolean done = !splits.watermarks[i].isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      running |= !done;
      boolean idle = !done && idleTimeout > 0 && run.processingTime().getMillis() - splits.lastData[i] >= idleTimeout;
      if (!idle && (watermark == null || splits.watermarks[i].isBefore(watermark))) {
        watermark = splits.watermarks[i];
      }
    }
    if (watermark == null || (running && !watermark.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE))) {
      // Only idle splits run (the others are done): nothing moves the watermark now.
      run.reportIdle();
      watermark = run.outputWatermarkBefore();
    }
    run.reportOutputWatermark(watermark);
    splits.finalized = false;
    run.atEpochEnd(() -> {
      finalizeMarks(context.stepName(), toFinalize);
      splits.finalized = true;
    });
    context.putDataset(
        out,
        context
            .session()
            .createDataset(
                read.map(new KeyedShuffle.Decode<>(
                        (org.apache.beam.sdk.coders.Coder) WindowedValues.getFullCoder(
                            out.getCoder(), TranslationContext.windowCoder(out))))
                    .rdd(),
                TranslationContext.encoder(out)));
  }

  private static void finalizeMarks(String stepName, List<Tuple2<UnboundedSource<Object, ?>, byte[]>> marks) {
    for (Tuple2<UnboundedSource<Object, ?>, byte[]> m : marks) {
      if (m._2() == null) {
        continue;
      }
      try {
        UnboundedSource.CheckpointMark mark = CoderUtils.decodeFromByteArray(m._1().getCheckpointMarkCoder(), m._2());
        mark.finalizeCheckpoint();
      } catch (Exception e) {
        throw new IllegalStateException("Step '" + stepName + "': finalizing a checkpoint mark failed", e);
      }
    }
  }
}
