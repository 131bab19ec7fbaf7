package dev.weir.translation.streaming;

import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * {@code TestStream}: one event per epoch. Elements are this epoch's output (in the global
 * window), a watermark event sets the step's output watermark, a processing-time event moves the
 * run's processing clock (which, in a pipeline with a TestStream, starts at the start of time and
 * moves only so). After the last event the watermark goes to the end of time.
 */
public final class TestStreamTranslator<T> implements OperatorTranslator<TestStream<T>> {

  /** Where a TestStream is, between epochs. */
  private static final class Position {
    int next;
    Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;

    private void write(java.io.DataOutputStream out) throws java.io.IOException {
      out.writeInt(next);
      out.writeLong(watermark.getMillis());
    }

    private static Position read(java.io.DataInputStream in) throws java.io.IOException {
      Position p = new Position();
      p.next = in.readInt();
      p.watermark = new Instant(in.readLong());
      return p;
    }
  }

  private static final StepProgress<Position> POSITION = StepProgress.of("position", Position::write, Position::read, Position::new);

  @Override
  public StepOperator operator(TestStream<T> transform) {
    return new TestStreamOperator<>(transform);
  }

  /** A TestStream over the run: takes its next event as each epoch starts. */
  private static final class TestStreamOperator<T> implements StepOperator {
    private final TestStream<T> transform;
    private @Nullable String stepName;
    /** This epoch's elements, taken when it starts; not committed. */
    private List<WindowedValue<T>> elements = new ArrayList<>();

    TestStreamOperator(TestStream<T> transform) {
      this.transform = transform;
    }

    @Override
    public void open(TranslationContext context) {
      stepName = context.stepName();
    }

    @Override
    public void startEpoch(StreamingRun run) {
      Position p = run.progressOf(stepName, POSITION);
      List<TestStream.Event<T>> events = transform.getEvents();
      elements = new ArrayList<>();
      if (p.next >= events.size() || run.draining()) {
        p.watermark = BoundedWindow.TIMESTAMP_MAX_VALUE;
        return;
      }
      TestStream.Event<T> event = events.get(p.next++);
      run.noteActivity();
      if (event instanceof TestStream.ElementEvent) {
        for (TimestampedValue<T> v : ((TestStream.ElementEvent<T>) event).getElements()) {
          elements.add(WindowedValues.of(v.getValue(), v.getTimestamp(), GlobalWindow.INSTANCE, PaneInfo.NO_FIRING));
        }
      } else if (event instanceof TestStream.WatermarkEvent) {
        p.watermark = ((TestStream.WatermarkEvent<T>) event).getWatermark();
      } else if (event instanceof TestStream.ProcessingTimeEvent) {
        run.advanceTestClock(((TestStream.ProcessingTimeEvent<T>) event).getProcessingTimeAdvance());
      } else {
        throw new IllegalArgumentException("Step '" + stepName + "': unknown TestStream event " + event);
      }
    }

    @Override
    public void processEpoch(TranslationContext context) {
      StreamingRun run = StreamingRun.of(context);
      PCollection<T> out = context.output();
      if (elements.isEmpty()) {
        // A watermark or clock event: the steps after it that have nothing due run no job.
        context.putEmpty(out);
      } else {
        context.putDataset(out, context.session().createDataset(elements, TranslationContext.encoder(out)));
      }
      run.reportOutputWatermark(run.progress(POSITION).watermark);
    }
  }
}
