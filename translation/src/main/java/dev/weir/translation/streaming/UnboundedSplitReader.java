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
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.Tuple2;

/**
 * Reads one epoch's slice of unbounded source splits: each split's reader resumes from the
 * split's checkpoint mark and reads until it has no record ready, or has read {@code
 * --epochMaxRecords} records, or for {@code --epochMaxReadTimeMillis}. Then it reports its new
 * mark and watermark, and is closed.
 */
final class UnboundedSplitReader implements FlatMapFunction<Iterator<UnboundedSplitReader.Slice>, byte[]> {

  /**
   * One split and the mark it resumes from ({@code null} at the start); {@code records}: how many
   * records to read exactly (an epoch run again after a crash reads what the interrupted attempt
   * read), or -1 for the usual limits.
   */
  record Slice(int split, UnboundedSource<Object, ?> source, byte @Nullable [] mark, long records) implements Serializable {}

  /** How long an epoch run again waits for the records the interrupted attempt read. */
  private static final long REPLAY_WAIT_MILLIS = 60_000;

  /** What a split reached: its mark (Beam-encoded) and watermark, and the records it read. */
  record Report(byte[] mark, long watermarkMillis, long records) implements Serializable {}

  private final String stepName;
  private final SerializablePipelineOptions options;
  private final StreamingSettings settings;
  private final Coder<WindowedValue<Object>> elementCoder;
  private final PartitionReports<Report> reports;
  private final PipelineMetrics metrics;

  UnboundedSplitReader(
      PipelineMetrics metrics,
      String stepName,
      SerializablePipelineOptions options,
      StreamingSettings settings,
      Coder<WindowedValue<Object>> elementCoder,
      PartitionReports<Report> reports) {
    this.stepName = stepName;
    this.options = options;
    this.settings = settings;
    this.elementCoder = elementCoder;
    this.reports = reports;
    this.metrics = metrics;
  }

  @Override
  public Iterator<byte[]> call(Iterator<Slice> slices) {
    List<byte[]> out = new ArrayList<>();
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
  private <M extends UnboundedSource.CheckpointMark> Report read(Slice slice, List<byte[]> out) throws Exception {
    UnboundedSource<Object, M> source = (UnboundedSource<Object, M>) slice.source();
    M mark = slice.mark() == null ? null : CoderUtils.decodeFromByteArray(source.getCheckpointMarkCoder(), slice.mark());
    boolean exact = slice.records() >= 0;
    long limit = exact ? slice.records() : settings.maxRecordsPerSplit();
    long deadline = System.currentTimeMillis() + (exact ? REPLAY_WAIT_MILLIS : settings.maxReadTimeMillis());
    long records = 0;
    try (UnboundedSource.UnboundedReader<Object> reader = source.createReader(options.get(), mark)) {
      boolean available = reader.start();
      while (true) {
        if (!available) {
          // Replaying: the records the interrupted attempt read may not be ready yet.
          if (!exact || System.currentTimeMillis() >= deadline) {
            break;
          }
          Thread.sleep(10);
          available = reader.advance();
          continue;
        }
        out.add(
            CoderUtils.encodeToByteArray(
                elementCoder,
                WindowedValues.of(
                    reader.getCurrent(), reader.getCurrentTimestamp(), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING)));
        records++;
        if (records >= limit || (!exact && System.currentTimeMillis() >= deadline)) {
          break;
        }
        available = reader.advance();
      }
      byte[] next = CoderUtils.encodeToByteArray((Coder) source.getCheckpointMarkCoder(), reader.getCheckpointMark());
      return new Report(next, reader.getWatermark().getMillis(), records);
    }
  }
}
