package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
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
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An unbounded read ({@code Read.Unbounded}, or the primitive Beam converts its splittable form
 * back to). The source is split once, on the driver, into about one split per core; every epoch
 * each split is a Spark task that reads a slice with the split's reader, kept open in the
 * executor that read it last ({@link SplitReaders}) and scheduled back there, and reports its new
 * mark, its watermark and where it ran. The source's watermark is the minimum over its splits; a
 * split whose watermark reaches the end of time is done, and one that neither read a record nor
 * moved its watermark for {@code --idleTimeoutMillis} is idle and leaves the minimum (a reader
 * that has caught up may still move its watermark with the clock, as KafkaIO's does: it is not
 * idle). Marks are finalized on the executors once
 * their epoch is committed: by the split's next task, or when the run ends.
 */
public final class UnboundedReadTranslator<T> implements TransformTranslator<PTransform<?, ?>>, RunsWithLeaves<PTransform<?, ?>> {
  private static final Logger LOG = LoggerFactory.getLogger(UnboundedReadTranslator.class);

  /** The splits of a source and where each one is: checkpointed with every epoch. */
  private static final class Splits {
    @Nullable ArrayList<UnboundedSource<Object, ?>> sources;
    byte[][] marks;
    /** The epoch each split's mark ends; -1 before its first read. */
    long[] markEpochs;
    /** The last epoch whose mark each split finalized; -1 before any. */
    long[] finalized;
    Instant[] watermarks;
    /** Processing time of each split's last record or watermark move (or of the first epoch). */
    long[] lastProgress;
    /** Where each split was read last (a Spark task location), or null. */
    String[] locations;

    /**
     * As committed. A split's source is a user object that Beam requires to be {@code
     * Serializable}; it goes Java-serialized, as Beam ships sources to workers. Its checkpoint
     * mark is already in the bytes of the source's own mark coder.
     */
    private void write(java.io.DataOutputStream out) throws java.io.IOException {
      out.writeInt(sources == null ? -1 : sources.size());
      if (sources == null) {
        return;
      }
      for (int i = 0; i < sources.size(); i++) {
        FieldsCoder.writeNullable(SerializableUtils.serializeToByteArray(sources.get(i)), out);
        FieldsCoder.writeNullable(marks[i], out);
        out.writeLong(markEpochs[i]);
        out.writeLong(finalized[i]);
        out.writeLong(watermarks[i].getMillis());
        out.writeLong(lastProgress[i]);
        FieldsCoder.writeNullable(locations[i], out);
      }
    }

    @SuppressWarnings("unchecked")
    private static Splits read(java.io.DataInputStream in) throws java.io.IOException {
      Splits s = new Splits();
      int n = in.readInt();
      if (n < 0) {
        return s;
      }
      s.sources = new ArrayList<>(n);
      s.marks = new byte[n][];
      s.markEpochs = new long[n];
      s.finalized = new long[n];
      s.watermarks = new Instant[n];
      s.lastProgress = new long[n];
      s.locations = new String[n];
      for (int i = 0; i < n; i++) {
        s.sources.add((UnboundedSource<Object, ?>) SerializableUtils.deserializeFromByteArray(FieldsCoder.readNullableBytes(in), "a source split"));
        s.marks[i] = FieldsCoder.readNullableBytes(in);
        s.markEpochs[i] = in.readLong();
        s.finalized[i] = in.readLong();
        s.watermarks[i] = new Instant(in.readLong());
        s.lastProgress[i] = in.readLong();
        s.locations[i] = FieldsCoder.readNullableString(in);
      }
      return s;
    }
  }

  private static final StepProgress<Splits> SPLITS = StepProgress.of("splits", Splits::write, Splits::read, Splits::new);

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static String describe(UnboundedSource<Object, ?> source, byte[] mark) {
    try {
      return String.valueOf(CoderUtils.decodeFromByteArray((org.apache.beam.sdk.coders.Coder) source.getCheckpointMarkCoder(), mark));
    } catch (Exception e) {
      return "(" + mark.length + " bytes: " + e + ")";
    }
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
    StreamingRun run = StreamingRun.of(context);
    PCollection<Object> out = context.output();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(context.session().sparkContext());
    Splits splits = run.progress(SPLITS);
    if (splits.sources == null) {
      try {
        UnboundedSource<Object, ?> source = source(transform);
        splits.sources =
            new ArrayList<>(
                (List) BundleMetrics.onDriver(
                    context.metrics(), context.stepName(), () -> source.split(run.settings().sourceSplits(jsc.defaultParallelism()), context.options().get())));
      } catch (Exception e) {
        throw new IllegalStateException("Step '" + context.stepName() + "': could not split its source", e);
      }
      if (splits.sources.isEmpty()) {
        splits.sources = new ArrayList<>(List.of(source(transform)));
      }
      int n = splits.sources.size();
      splits.marks = new byte[n][];
      splits.markEpochs = new long[n];
      java.util.Arrays.fill(splits.markEpochs, -1);
      splits.finalized = new long[n];
      java.util.Arrays.fill(splits.finalized, -1);
      splits.watermarks = new Instant[n];
      java.util.Arrays.fill(splits.watermarks, BoundedWindow.TIMESTAMP_MIN_VALUE);
      splits.lastProgress = new long[n];
      java.util.Arrays.fill(splits.lastProgress, run.processingTime().getMillis());
      splits.locations = new String[n];
    }
    if (run.draining()) {
      // Drained: nothing more is read, and the source says it is done.
      java.util.Arrays.fill(splits.watermarks, BoundedWindow.TIMESTAMP_MAX_VALUE);
    }
    // Every epoch before this one succeeded and was committed (a failed epoch ends the run).
    long committed = run.epoch() - 1;
    // An epoch run again after a crash reads exactly what the interrupted attempt read, so that
    // it emits the same panes again (see StreamingRun#plannedReads).
    long[] planned = run.plannedReads();
    List<UnboundedSplitReader.Slice> slices = new ArrayList<>();
    List<String> locations = new ArrayList<>();
    // One read deadline for the whole epoch, however many waves of tasks its splits take.
    long readUntil = System.currentTimeMillis() + run.settings().maxReadTimeMillis();
    long timerDue = run.nextEventTimerDownstream();
    for (int i = 0; i < splits.sources.size(); i++) {
      boolean done = !splits.watermarks[i].isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      boolean skip = planned != null && (i >= planned.length || planned[i] == 0);
      boolean read = !done && !skip;
      // A split that reached its end still has a mark to finalize once that mark is committed.
      boolean finalizeOnly = done && splits.markEpochs[i] >= 0 && splits.finalized[i] < splits.markEpochs[i];
      if (read || finalizeOnly) {
        slices.add(new UnboundedSplitReader.Slice(
            i, splits.sources.get(i), splits.marks[i], splits.markEpochs[i], run.epoch(), committed,
            planned == null ? -1 : planned[i], finalizeOnly, readUntil,
            // Only a watermark this read moves past the timer ends it early: one already past
            // it (held downstream) would end every read at once.
            timerDue > splits.watermarks[i].getMillis() ? timerDue : Long.MAX_VALUE));
        locations.add(splits.locations[i]);
      }
    }
    PartitionReports<UnboundedSplitReader.Report> reports = new PartitionReports<>();
    context.session().sparkContext().register(reports);
    JavaRDD<WindowedValue<Object>> slicesRead =
        Rdds.mapPartitions(
            LocatedRdds.parallelize(context.session().sparkContext(), slices, locations, UnboundedSplitReader.Slice.class),
            new UnboundedSplitReader(run.runId(), context.metrics(), context.stepName(), context.options(), run.settings(), reports),
            false);
    String stepName = context.stepName();
    if (run.runsWithLeaves()) {
      // Nothing downstream needs what the read finds before the leaves job: each task reads its
      // split and runs the steps after it on what it read, in that one job. Until it ran, the
      // source stands where its last epoch left it; then it reports the watermark it reaches
      // now, and the steps after it follow (StreamingRun#leavesRan).
      if (slices.isEmpty()) {
        reportWatermark(splits, run);
        context.putEmpty(out);
        return;
      }
      run.reportOutputWatermark(run.outputWatermarkBefore());
      if (run.idleBefore()) {
        run.reportIdle();
      }
      run.afterLeaves(() -> {
        if (settle(splits, reports, stepName, run) > 0) {
          run.noteActivity();
        }
        reportWatermark(splits, run);
      });
      context.putRdd(out, (JavaRDD) slicesRead, false);
      return;
    }
    // The epoch's records are read once, however many steps read them: persisted for the epoch.
    JavaRDD<WindowedValue<Object>> read =
        context.persistOnce(
            slicesRead, (org.apache.beam.sdk.coders.Coder) WindowedValues.getFullCoder(out.getCoder(), TranslationContext.windowCoder(out)));
    context.session().sparkContext().setJobDescription(stepName);
    long records = Rdds.count(read);
    if (records > 0) {
      run.noteActivity();
    }
    settle(splits, reports, stepName, run);
    reportWatermark(splits, run);
    if (records == 0) {
      // Known empty: the steps after it that have nothing due this epoch run no job.
      context.putEmpty(out);
      return;
    }
    context.putRdd(out, (JavaRDD) read, true);
  }

  /**
   * Takes in what each split's task reported of its read: its new mark, watermark and location,
   * and which marks it finalized; records how many records each split read (for an epoch run
   * again). Returns how many records were read in all.
   */
  private static long settle(
      Splits splits, PartitionReports<UnboundedSplitReader.Report> reports, String stepName, StreamingRun run) {
    long[] recordsRead = new long[splits.sources.size()];
    long records = 0;
    for (Map.Entry<Integer, UnboundedSplitReader.Report> r : reports.value().entrySet()) {
      int split = r.getKey();
      UnboundedSplitReader.Report report = r.getValue();
      splits.finalized[split] = Math.max(splits.finalized[split], Math.min(report.finalizedThrough(), splits.markEpochs[split]));
      splits.locations[split] = report.location();
      run.noteExecutor(report.location());
      if (splits.watermarks[split].isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        recordsRead[split] = report.records();
        records += report.records();
        splits.marks[split] = report.mark();
        splits.markEpochs[split] = run.epoch();
        if (LOG.isDebugEnabled()) {
          // What a commit of this epoch holds for the split (test and operator visibility).
          LOG.debug("Epoch {} step '{}' split {}: mark {}", run.epoch(), stepName, split,
              describe(splits.sources.get(split), report.mark()));
        }
        Instant wm = new Instant(report.watermarkMillis());
        boolean moved = wm.isAfter(splits.watermarks[split]);
        if (moved) {
          splits.watermarks[split] = wm;
        }
        if (report.records() > 0 || moved) {
          splits.lastProgress[split] = run.processingTime().getMillis();
        }
      }
    }
    run.recordReads(stepName, recordsRead);
    return records;
  }

  /** Reports the source's watermark, from its splits' and their idleness, as the current step's. */
  private static void reportWatermark(Splits splits, StreamingRun run) {
    Instant watermark =
        SourceWatermark.of(splits.watermarks, splits.lastProgress, run.processingTime().getMillis(), run.settings().idleTimeoutMillis());
    if (watermark == null) {
      // Every split still running is idle: nothing moves the watermark now.
      run.reportIdle();
      watermark = run.outputWatermarkBefore();
    }
    run.reportOutputWatermark(watermark);
  }
}
