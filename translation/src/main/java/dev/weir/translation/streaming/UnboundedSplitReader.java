package dev.weir.translation.streaming;

import dev.weir.translation.StepFailure;
import dev.weir.translation.metrics.BundleMetrics;
import dev.weir.translation.metrics.PipelineMetrics;
import java.io.Closeable;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.Tuple2;

/**
 * Reads one epoch's slice of unbounded source splits on an executor, each with the split's
 * reader kept open from the epoch before ({@link SplitReaders}), or a new one from the split's
 * checkpoint mark. A reader whose {@code advance()} says nothing is ready is asked again after a
 * short pause: nothing ready means "not yet", not "done", unless the reader's watermark is at the
 * end of time (Beam's sign that no record will follow). A split reads until it has read {@code
 * --epochMaxRecords} records, or for {@code --epochMaxReadTimeMillis}, or until nothing has been
 * ready for {@code --epochQuietMillis}, or until its reader is done. Then it reports its new mark and watermark, and where it
 * ran, so that its next slice is scheduled there again. Before reading, it finalizes the marks of
 * the epochs already committed, with the live mark objects where the reader made them.
 */
final class UnboundedSplitReader
    implements FlatMapFunction<Iterator<UnboundedSplitReader.Slice>, WindowedValue<Object>> {

  /**
   * One split of epoch {@code epoch}: the mark it resumes from ({@code null} at the start), the
   * epoch that mark ends ({@code markEpoch}, -1 at the start), the last committed epoch, whose
   * marks may be finalized, and {@code records}: how many records to read exactly (an epoch run
   * again after a crash reads what the interrupted attempt read), or -1 for the usual limits. A
   * split that reached its end gets a slice that only finalizes ({@code finalizeOnly}). {@code
   * readUntilMillis} is the epoch's read deadline (wall clock), the same for every split: a task
   * that runs later than that, because there are more splits than cores, reads only what is
   * ready at once, so that the epoch's reads do not take one time limit per wave of tasks. A
   * split whose watermark reaches {@code stopAtWatermarkMillis} ends its read there: a step
   * downstream has a timer due at that watermark ({@link StreamingRun#nextEventTimerDownstream}),
   * and its output should not wait for the rest of the time limit ({@code Long.MAX_VALUE}: no
   * such timer).
   */
  record Slice(
      int split,
      UnboundedSource<Object, ?> source,
      byte @Nullable [] mark,
      long markEpoch,
      long epoch,
      long committed,
      long records,
      boolean finalizeOnly,
      long readUntilMillis,
      long stopAtWatermarkMillis)
      implements Serializable {}

  /** How long an epoch run again waits for the records the interrupted attempt read. */
  private static final long REPLAY_WAIT_MILLIS = 60_000;
  /** The longest pause between two polls of a reader that had nothing ready. */
  private static final long MAX_BACKOFF_MILLIS = 10;

  /**
   * What a split reached: its mark (Beam-encoded) and watermark, the records it read, the last
   * epoch whose marks it finalized, and where it ran (a Spark task location).
   */
  record Report(byte[] mark, long watermarkMillis, long records, long finalizedThrough, String location)
      implements Serializable {}

  private final String runId;
  private final String stepName;
  private final SerializablePipelineOptions options;
  private final StreamingSettings settings;
  private final PartitionReports<Report> reports;
  private final PipelineMetrics metrics;

  UnboundedSplitReader(
      String runId,
      PipelineMetrics metrics,
      String stepName,
      SerializablePipelineOptions options,
      StreamingSettings settings,
      PartitionReports<Report> reports) {
    this.runId = runId;
    this.stepName = stepName;
    this.options = options;
    this.settings = settings;
    this.reports = reports;
    this.metrics = metrics;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<Slice> slices) {
    List<WindowedValue<Object>> out = new ArrayList<>();
    BundleMetrics bundleMetrics = BundleMetrics.start(metrics, stepName);
    while (slices.hasNext()) {
      Slice slice = slices.next();
      try (Closeable scope = bundleMetrics.enter()) {
        reports.add(new Tuple2<>(slice.split(), read(slice, out)));
      } catch (Exception e) {
        throw new StepFailure(stepName, e);
      }
    }
    return out.iterator();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Report read(Slice slice, List<WindowedValue<Object>> out) throws Exception {
    SplitReaders.Entry entry =
        SplitReaders.lease(runId, stepName, slice.split(), slice.source(), options, slice.markEpoch(), slice.mark());
    boolean released = false;
    try {
      SplitReaders.finalizeThrough(entry, slice.committed());
      UnboundedSource.UnboundedReader<Object> reader = entry.reader;
      if (slice.finalizeOnly()) {
        SplitReaders.closeSplit(runId, stepName, slice.split());
        released = true;
        return new Report(slice.mark(), reader.getWatermark().getMillis(), 0, slice.committed(), ExecutorLocation.here());
      }
      long records = readSlice(slice, entry, out);
      UnboundedSource.CheckpointMark mark = reader.getCheckpointMark();
      byte[] encoded = CoderUtils.encodeToByteArray((Coder) slice.source().getCheckpointMarkCoder(), mark);
      long watermark = reader.getWatermark().getMillis();
      SplitReaders.release(entry, slice.epoch(), mark);
      released = true;
      return new Report(encoded, watermark, records, slice.committed(), ExecutorLocation.here());
    } finally {
      if (!released) {
        // The next task of this split starts again from its mark, whatever this one read.
        SplitReaders.discard(runId, stepName, slice.split(), entry);
      }
    }
  }

  private static boolean reachedStop(UnboundedSource.UnboundedReader<Object> reader, long stopAt) {
    return stopAt != Long.MAX_VALUE && reader.getWatermark().getMillis() >= stopAt;
  }

  /** Reads the slice's records into {@code out}; returns how many. */
  private long readSlice(Slice slice, SplitReaders.Entry entry, List<WindowedValue<Object>> out) throws Exception {
    UnboundedSource.UnboundedReader<Object> reader = entry.reader;
    boolean exact = slice.records() >= 0;
    long limit = exact ? slice.records() : settings.maxRecordsPerSplit();
    // An epoch run again reads exactly what it read before, wherever the watermark gets to.
    long stopAt = exact ? Long.MAX_VALUE : slice.stopAtWatermarkMillis();
    long start = System.currentTimeMillis();
    long deadline = start + (exact ? REPLAY_WAIT_MILLIS : settings.maxReadTimeMillis());
    long lastReady = start;
    // The first retry after a record is immediate (a consumer between two polls is often ready
    // again at once), then the pauses double up to MAX_BACKOFF_MILLIS.
    long backoff = 0;
    long records = 0;
    // The watermark is asked at most once a millisecond while records flow: a source may compute
    // it over everything it holds (the Nexmark generator over its queue of delayed events).
    long stopCheckedAt = -1;
    if (limit == 0) {
      return 0;
    }
    boolean available;
    if (entry.started) {
      available = reader.advance();
    } else {
      entry.started = true;
      available = reader.start();
    }
    while (true) {
      long now = System.currentTimeMillis();
      if (available) {
        out.add(
            WindowedValues.of(reader.getCurrent(), reader.getCurrentTimestamp(), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING));
        records++;
        lastReady = now;
        backoff = 0;
        if (records >= limit || (!exact && now >= deadline)) {
          return records;
        }
        if (now != stopCheckedAt) {
          stopCheckedAt = now;
          if (reachedStop(reader, stopAt)) {
            return records;
          }
        }
      } else if (reachedStop(reader, stopAt)) {
        // A later record may not be ready yet, but the watermark already tells a step downstream
        // that its timer is due.
        return records;
      } else if (!exact && !reader.getWatermark().isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        // Nothing ready, and the reader says nothing ever will: its watermark is at the end of
        // time. Waiting out the quiet time would only delay the epoch (a finite stream's last).
        return records;
      } else {
        // Nothing ready yet. An epoch run again after a crash waits for what it read before;
        // otherwise the split stops at its time limit, once it has been quiet for a while, or,
        // past the epoch's read deadline, after the one immediate retry.
        boolean pastEpoch = now >= slice.readUntilMillis() && backoff > 0;
        if (now >= deadline || (!exact && (now - lastReady >= settings.quietMillis() || pastEpoch))) {
          if (exact) {
            throw new IllegalStateException(
                "Split " + slice.split() + " gave " + records + " of the " + limit + " records that epoch "
                    + slice.epoch() + " read before it was interrupted, within " + REPLAY_WAIT_MILLIS
                    + " ms: the source does not give the same records again from a checkpoint mark");
          }
          return records;
        }
        if (backoff == 0) {
          Thread.onSpinWait();
          backoff = 1;
        } else {
          Thread.sleep(backoff);
          backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
      }
      available = reader.advance();
    }
  }
}
