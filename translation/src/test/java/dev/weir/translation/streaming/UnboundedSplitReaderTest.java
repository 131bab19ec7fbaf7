package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThan;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.WindowedValue;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One epoch's read of a split, Spark-free: {@link UnboundedSplitReader} called as a Spark task
 * would call it, on a scripted reader. The quiet time is far longer than any of these reads need,
 * so a read that waits it out shows in the number of polls, not in a clock.
 */
class UnboundedSplitReaderTest {
  private static final long LONG_QUIET_MILLIS = 10_000;
  private final String runId = UUID.randomUUID().toString();

  @AfterEach
  void closeReaders() {
    SplitReaders.closeRun(runId, -1);
  }

  @Test
  void aReaderWhoseWatermarkIsAtTheEndOfTimeIsNotPolledAgain() {
    ScriptedSource source = new ScriptedSource(List.of(1L, 2L, 3L), 0);

    assertThat(readOneEpoch(source), contains(1L, 2L, 3L));
    // start() and advance() gave the three records, then one advance() said nothing was ready
    // while the watermark was at the end of time. Waiting for more is pointless: Beam's readers
    // signal the end of their data this way.
    assertThat(source.pollsAfterTheEnd.get(), equalTo(1));
  }

  @Test
  void aReaderWithNothingReadyYetIsAskedAgain() {
    // Nothing is ready for the first five polls, and the watermark is not at the end: "not yet".
    ScriptedSource source = new ScriptedSource(List.of(7L, 8L), 5);

    assertThat(readOneEpoch(source), contains(7L, 8L));
    assertThat(source.pollsAfterTheEnd.get(), equalTo(1));
  }

  @Test
  void aReadEndsOnceItsWatermarkReachesATimerDueDownstream() {
    // The watermark follows the records read, each 2 ms after the last (the read asks for the
    // watermark at most once a millisecond); a step downstream has a timer due at 5.
    ScriptedSource source = new ScriptedSource(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), 0, true, 2);

    assertThat(readOneEpoch(source, 5), contains(1L, 2L, 3L, 4L, 5L));
  }

  @Test
  void aReadWithoutTimerDueDownstreamReadsOn() {
    ScriptedSource source = new ScriptedSource(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), 0, true, 2);

    assertThat(readOneEpoch(source, Long.MAX_VALUE), contains(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L));
  }

  @Test
  void aReadAsksForTheWatermarkFarLessOftenThanOncePerRecord() {
    // 100,000 records ready at once, all before a timer due downstream: asked once a
    // millisecond at most, the watermark is asked a few times at most in the read.
    List<Long> records = new ArrayList<>();
    for (long i = 0; i < 100_000; i++) {
      records.add(i);
    }
    ScriptedSource source = new ScriptedSource(records, 0, true, 0);

    assertThat(readOneEpoch(source, 1_000_000, 100_000), hasSize(100_000));
    assertThat(source.watermarkCalls.get(), lessThan(50_000));
  }

  private List<Long> readOneEpoch(ScriptedSource source) {
    return readOneEpoch(source, Long.MAX_VALUE);
  }

  private List<Long> readOneEpoch(ScriptedSource source, long stopAtWatermark) {
    return readOneEpoch(source, stopAtWatermark, 1_000);
  }

  private List<Long> readOneEpoch(ScriptedSource source, long stopAtWatermark, long maxRecords) {
    StreamingSettings settings =
        new StreamingSettings(maxRecords, LONG_QUIET_MILLIS, LONG_QUIET_MILLIS, 1, 0, 0, null);
    UnboundedSplitReader reader =
        new UnboundedSplitReader(
            runId,
            null,
            "Read",
            new SerializablePipelineOptions(PipelineOptionsFactory.create()),
            settings,
            new PartitionReports<>());
    @SuppressWarnings({"unchecked", "rawtypes"})
    UnboundedSplitReader.Slice slice =
        new UnboundedSplitReader.Slice(
            0, (UnboundedSource) source, null, -1, 1, -1, -1, false, System.currentTimeMillis() + LONG_QUIET_MILLIS,
            stopAtWatermark);
    List<Long> read = new ArrayList<>();
    Iterator<WindowedValue<Object>> out = reader.call(List.of(slice).iterator());
    while (out.hasNext()) {
      read.add((Long) out.next().getValue());
    }
    return read;
  }

  /**
   * Gives nothing for its first {@code notReadyPolls} polls, then {@code records}; after the last
   * its watermark is at the end of time, and it counts the polls it is asked after that. Before
   * that, its watermark is the start of time, or, if {@code watermarkFollowsRecords}, the last
   * record read (each record is its own timestamp). Each record becomes ready {@code
   * recordMillis} after the one before it; it counts how often its watermark is asked for.
   */
  private static final class ScriptedSource extends UnboundedSource<Long, ScriptedSource.Mark> {
    final List<Long> records;
    final int notReadyPolls;
    final boolean watermarkFollowsRecords;
    final long recordMillis;
    final AtomicInteger pollsAfterTheEnd = new AtomicInteger();
    final AtomicInteger watermarkCalls = new AtomicInteger();

    ScriptedSource(List<Long> records, int notReadyPolls) {
      this(records, notReadyPolls, false, 0);
    }

    ScriptedSource(List<Long> records, int notReadyPolls, boolean watermarkFollowsRecords, long recordMillis) {
      this.records = records;
      this.notReadyPolls = notReadyPolls;
      this.watermarkFollowsRecords = watermarkFollowsRecords;
      this.recordMillis = recordMillis;
    }

    static final class Mark implements UnboundedSource.CheckpointMark, Serializable {
      @Override
      public void finalizeCheckpoint() {}
    }

    @Override
    public List<ScriptedSource> split(int desiredNumSplits, PipelineOptions options) {
      return List.of(this);
    }

    @Override
    public UnboundedReader<Long> createReader(PipelineOptions options, @Nullable Mark mark) {
      return new Reader();
    }

    @Override
    public Coder<Mark> getCheckpointMarkCoder() {
      return SerializableCoder.of(Mark.class);
    }

    @Override
    public Coder<Long> getOutputCoder() {
      return VarLongCoder.of();
    }

    private final class Reader extends UnboundedReader<Long> {
      private int polls;
      private int next = -1;

      @Override
      public boolean start() {
        return advance();
      }

      @Override
      public boolean advance() {
        if (polls++ < notReadyPolls) {
          return false;
        }
        if (next + 1 < records.size()) {
          if (recordMillis > 0) {
            try {
              Thread.sleep(recordMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
          }
          next++;
          return true;
        }
        next = records.size();
        pollsAfterTheEnd.incrementAndGet();
        return false;
      }

      @Override
      public Long getCurrent() {
        if (next < 0 || next >= records.size()) {
          throw new NoSuchElementException();
        }
        return records.get(next);
      }

      @Override
      public Instant getCurrentTimestamp() {
        return new Instant(getCurrent());
      }

      @Override
      public Instant getWatermark() {
        watermarkCalls.incrementAndGet();
        if (next >= records.size()) {
          return BoundedWindow.TIMESTAMP_MAX_VALUE;
        }
        return watermarkFollowsRecords && next >= 0 ? new Instant(records.get(next)) : BoundedWindow.TIMESTAMP_MIN_VALUE;
      }

      @Override
      public CheckpointMark getCheckpointMark() {
        return new Mark();
      }

      @Override
      public UnboundedSource<Long, ?> getCurrentSource() {
        return ScriptedSource.this;
      }

      @Override
      public void close() {}
    }
  }
}
