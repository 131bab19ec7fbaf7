package dev.weir.translation.streaming;

import dev.weir.translation.TranslationContext;
import dev.weir.translation.streaming.state.StateBackend;
import dev.weir.translation.streaming.state.StateFiles;
import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * What every keyed step's partitions need to know of the epoch they run in, whatever the step
 * (a grouping, a stateful DoFn, a splittable DoFn's ProcessFn): where their state is and which
 * epoch it is at, the watermarks and clocks the epoch runs at, and where each partition reports
 * its holds. Built by the driver once per epoch and step, shipped with the step's task.
 *
 * @param stateEpoch the epoch the partitions' state is at: the last the step ran in
 * @param inputBefore the step's input watermark before this epoch: elements and keys arrive at it
 * @param inputNow the step's input watermark in this epoch, to which event-time timers advance
 * @param processingTime the epoch's clock: elements arrive at it, and it is the synchronized
 *     processing time
 * @param timerClock the step's processing time, at which its processing-time timers fire
 * @param files where the state is checkpointed, or null
 * @param backend where the state lives between epochs
 * @param holds each partition's report: its holds and what it emitted
 */
record KeyedEpoch(
    String runId,
    long epoch,
    long stateEpoch,
    Instant inputBefore,
    Instant inputNow,
    Instant processingTime,
    Instant timerClock,
    @Nullable StateFiles files,
    StateBackend backend,
    PartitionReports<KeyedShuffle.PartitionReport> holds)
    implements Serializable {

  /** This epoch of {@code context}'s run, for its current step, whose state is at {@code stateEpoch}. */
  static KeyedEpoch of(TranslationContext context, long stateEpoch) {
    StreamingRun run = StreamingRun.of(context);
    PartitionReports<KeyedShuffle.PartitionReport> holds = new PartitionReports<>();
    // Unnamed: Spark's UI would render a named accumulator's map while tasks add to it.
    context.session().sparkContext().register(holds);
    return new KeyedEpoch(
        run.runId(),
        run.epoch(),
        stateEpoch,
        run.inputWatermarkBefore(),
        run.inputWatermark(),
        run.processingTime(),
        run.stepProcessingTime(),
        run.stateFiles(),
        run.settings().stateBackend(),
        holds);
  }
}
