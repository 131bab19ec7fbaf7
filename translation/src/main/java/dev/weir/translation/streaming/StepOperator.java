package dev.weir.translation.streaming;

import dev.weir.translation.TranslationContext;

/**
 * A streaming step over a whole run, built once by its translator ({@link
 * OperatorTranslator#operator}) before the first epoch and then run once per epoch. The epoch
 * loop ({@link EpochLoop}) drives its life cycle:
 *
 * <ol>
 *   <li>{@link #open}, once, after the run restored what it committed: builds what no epoch
 *       changes (a DoFn's spec, the coders of its state and output);
 *   <li>each epoch, {@link #startEpoch} before any step runs, then {@link #processEpoch} in
 *       topological order, after its producers: it puts the epoch's outputs into the context and
 *       reports its output watermark, held by what it keeps, to the run ({@link
 *       StreamingRun#reportOutputWatermark});
 *   <li>the run's end, on the executors, where its DoFns and keyed state live ({@link RunCleanup}).
 * </ol>
 *
 * <p>What it must keep across a restart it keeps as the run's progress, committed with each epoch
 * ({@link StreamingRun#progress}); what it builds once is in its fields, and a restarted run
 * builds it again.
 */
interface StepOperator {
  /** Builds what no epoch changes; {@code context} is at the operator's step, with no data yet. */
  default void open(TranslationContext context) {}

  /** Acts before any step of the epoch runs (a TestStream takes its next event). */
  default void startEpoch(StreamingRun run) {}

  /** Runs the step's epoch: puts its outputs into {@code context} and reports its watermark. */
  void processEpoch(TranslationContext context);
}
