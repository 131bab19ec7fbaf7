package dev.weir.translation.streaming;

import dev.weir.translation.StreamingEpoch;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.streaming.state.StateFiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The driver's side of one streaming run, as the epoch loop and the steps' translators see it:
 * the epoch counter and the current step, over the parts that keep the run's state between
 * epochs: every step's watermarks ({@link WatermarkTracker}), the processing clock ({@link
 * ProcessingClock}), what each step keeps (a source's position, for instance: {@link
 * StepProgressStore}), what side inputs received ({@link SideInputHistory}) and what an epoch
 * decided, so that it runs again the same way ({@link EpochReplayLog}).
 *
 * <p>A step receives the epoch's elements at its previous input watermark ({@link
 * #inputWatermarkBefore}) and only then advances to the new one ({@link #inputWatermark}): an
 * element emitted upstream in this epoch is never late merely because the watermark that follows
 * it arrived in the same epoch.
 */
public final class StreamingRun implements StreamingEpoch {
  private final String runId = UUID.randomUUID().toString();
  private final StreamingSettings settings;
  private final int keyedPartitions;
  private final SideInputHistory sideInputs = new SideInputHistory();
  private final WatermarkTracker watermarks;
  private final StepProgressStore progress = new StepProgressStore();
  private final List<Runnable> atEpochEnd = new ArrayList<>();
  private final List<Runnable> afterLeaves = new ArrayList<>();
  /** The steps that ran within this epoch's leaves job so far, for its description. */
  private final List<String> ranWithLeaves = new ArrayList<>();
  /** The sources and keyed steps run within the epoch's leaves job (see {@link #runsWithLeaves}). */
  private Set<String> withLeaves = Set.of();
  /** The steps downstream of those steps, in topological order. */
  private List<String> afterStepsWithLeaves = List.of();
  private final List<Runnable> releases = new ArrayList<>();
  /** Where this run's tasks held readers or state (Spark task locations). */
  private final Set<String> executors = new HashSet<>();
  /** Where each step's keyed partitions ran last, by step. */
  private final Map<String, String[]> partitionLocations = new HashMap<>();
  /** The last epoch whose jobs all ran (and, with a checkpoint dir, that was committed). */
  private long lastCompleted = -1;
  private final @Nullable CheckpointDir checkpoints;
  /** What this epoch decided, recorded so that it runs again the same way if cut short. */
  private final EpochReplayLog replayLog;
  private final ProcessingClock clock;
  /** Every step, in topological order. */
  private final List<String> order;
  /** The steps downstream of each step through main inputs, transitively. */
  private final Map<String, Set<String>> downstream;
  private long epoch;
  private boolean active;
  private boolean waiting;
  private boolean draining;
  private @Nullable String step;

  /**
   * @param producers for each step in topological order, the steps producing its main inputs
   * @param producerOf the step producing each PCollection
   * @param testClock whether a TestStream drives processing time (from the start of time on)
   * @param checkpoints where epochs are committed, or null
   */
  public StreamingRun(
      StreamingSettings settings,
      int keyedPartitions,
      Map<String, List<String>> producers,
      Map<PCollection<?>, String> producerOf,
      boolean testClock,
      @Nullable CheckpointDir checkpoints) {
    this.settings = settings;
    this.checkpoints = checkpoints;
    this.replayLog = new EpochReplayLog(checkpoints);
    this.clock = new ProcessingClock(testClock, replayLog);
    this.keyedPartitions = keyedPartitions;
    this.watermarks = new WatermarkTracker(producers, producerOf);
    this.order = List.copyOf(producers.keySet());
    this.downstream = downstream(order, producers);
  }

  private static Map<String, Set<String>> downstream(List<String> order, Map<String, List<String>> producers) {
    Map<String, Set<String>> reached = new HashMap<>();
    // Backwards through the topological order: each step's consumers are done before it.
    for (int i = order.size() - 1; i >= 0; i--) {
      reached.putIfAbsent(order.get(i), new HashSet<>());
      for (String producer : producers.get(order.get(i))) {
        Set<String> after = reached.computeIfAbsent(producer, p -> new HashSet<>());
        after.add(order.get(i));
        after.addAll(reached.get(order.get(i)));
      }
    }
    Map<String, Set<String>> downstream = new HashMap<>();
    reached.forEach((step, after) -> downstream.put(step, Set.copyOf(after)));
    return downstream;
  }

  /** The streaming run that {@code context} translates an epoch of; fails in batch. */
  public static StreamingRun of(TranslationContext context) {
    return (StreamingRun) context.streaming();
  }

  @Override
  public String runId() {
    return runId;
  }

  public StreamingSettings settings() {
    return settings;
  }

  /** The number of partitions keyed state is spread over; fixed for the run. */
  public int keyedPartitions() {
    return keyedPartitions;
  }

  /** Where the current step keeps its keyed state in the checkpoint dir, or null without one. */
  @Nullable
  StateFiles stateFiles() {
    return checkpoints == null ? null : checkpoints.stateFiles(step);
  }

  /** The current epoch, from 1. */
  public long epoch() {
    return epoch;
  }

  /**
   * The processing time of this epoch: its elements arrive at it, and it is the synchronized
   * processing time of every step in it, which cannot pass it before every step has processed
   * what the epoch read.
   */
  public Instant processingTime() {
    return clock.epochTime();
  }

  /**
   * The processing time at which the current step fires its processing-time timers: the wall
   * clock when it runs, after the steps before it in the epoch, and never before the epoch's
   * clock. Time passes within an epoch as in any engine: a trigger 1 ms after an element's arrival
   * can fire in the epoch the element arrived in, once the steps upstream took that long. It is
   * recorded like the epoch's clock, so that an epoch run again fires the same timers. A
   * TestStream's clock is the epoch's.
   */
  public Instant stepProcessingTime() {
    return clock.stepTime(epoch, step);
  }

  /** Moves a TestStream's processing clock on. */
  public void advanceTestClock(Duration by) {
    clock.advanceTestClock(by);
  }

  /** Whether the run is being drained: sources read nothing more and end their watermarks. */
  public boolean draining() {
    return draining;
  }

  /** The current step's input watermark when the epoch began. */
  public Instant inputWatermarkBefore() {
    return watermarks.inputWatermarkBefore();
  }

  /** The current step's input watermark now that its producers have run in this epoch. */
  public Instant inputWatermark() {
    return watermarks.inputWatermark();
  }

  /** The current step's output watermark when the epoch began. */
  public Instant outputWatermarkBefore() {
    return watermarks.outputWatermarkBefore();
  }

  /**
   * Sets the current step's output watermark for this epoch: a source's own, or a step's holds
   * already combined with its input watermark. It never goes back.
   */
  public void reportOutputWatermark(Instant watermark) {
    watermarks.report(watermark);
  }

  /** Whether the current step was idle when the epoch began. */
  public boolean idleBefore() {
    return watermarks.idleBefore();
  }

  /** Says that the current step, a source, is idle: every split of it has gone quiet. */
  public void reportIdle() {
    watermarks.reportIdle();
  }

  /** Says that this epoch did something (read data, emitted output), so the next starts at once. */
  public void noteActivity() {
    active = true;
  }

  /** What the current step keeps between epochs of this kind. */
  public <T> T progress(StepProgress<T> kind) {
    return progressOf(step, kind);
  }

  /**
   * What step {@code stepName} keeps between epochs of this kind: restored from the commit the
   * run resumed from, or the kind's initial value the first time.
   */
  public <T> T progressOf(String stepName, StepProgress<T> kind) {
    return progress.get(stepName, kind, "the commit of epoch " + epoch + " in --checkpointDir=" + checkpoints);
  }

  /**
   * What step {@code stepName} keeps of this kind, or null if it keeps none yet ({@link
   * #progressOf} without creating it).
   */
  <T> @Nullable T findProgressOf(String stepName, StepProgress<T> kind) {
    return progress.find(stepName, kind, "the commit of epoch " + epoch + " in --checkpointDir=" + checkpoints);
  }

  /**
   * The earliest input watermark at which a keyed step downstream of the current one has an
   * event-time timer due, as those steps reported after the last epoch they ran in; {@code
   * Long.MAX_VALUE} if none is known. A source whose watermark reaches it has given those steps
   * something to fire, and may end its read there rather than at its time limit ({@link
   * UnboundedSplitReader}): that output then waits one read less.
   */
  public long nextEventTimerDownstream() {
    long next = Long.MAX_VALUE;
    for (String after : downstream.getOrDefault(step, Set.of())) {
      next = Math.min(next, KeyedShuffle.LastRun.nextEventTimer(this, after));
    }
    return next;
  }

  /**
   * Runs {@code action} once this epoch's leaves job ran, before the epoch is committed, with the
   * current step as it is now: a step run within that job ({@link #runsWithLeaves}) settles there
   * what it did and reports the watermark it reached. The action reports the step's output
   * watermark as its translation did; a source that reports none reaches the end of time.
   */
  public void afterLeaves(Runnable action) {
    String current = step;
    ranWithLeaves.add(current);
    afterLeaves.add(() -> {
      beginStep(current);
      action.run();
    });
  }

  /**
   * Whether the current step, a source or a keyed step, runs within the epoch's leaves job rather
   * than in a job of its own first. That is so when the steps after it form one chain without
   * fan-out, each only deriving its output lazily from its input's elements ({@link
   * dev.weir.translation.TransformTranslator#derivesLazily}; {@link EpochLoop#withLeaves}):
   * nothing in the epoch needs its outcome before the leaves run. Until that job ran, the step's
   * output watermark is the one its last epoch reached; then it reports the one it reaches now,
   * and the steps after it follow, in the same epoch ({@link #leavesRan}).
   */
  public boolean runsWithLeaves() {
    return withLeaves.contains(step);
  }

  /** Names the steps run within the epoch's leaves job; set by the epoch loop. */
  void runWithLeaves(Set<String> steps) {
    withLeaves = Set.copyOf(steps);
    List<String> after = new ArrayList<>();
    for (String name : order) {
      if (steps.stream().anyMatch(first -> downstream.get(first).contains(name))) {
        after.add(name);
      }
    }
    afterStepsWithLeaves = List.copyOf(after);
  }

  /** The steps run within this epoch's leaves job so far, in the order they were translated. */
  List<String> ranWithLeaves() {
    return List.copyOf(ranWithLeaves);
  }

  /** Runs {@code action} once this epoch's jobs have all run, if they all succeeded. */
  public void atEpochEnd(Runnable action) {
    atEpochEnd.add(action);
  }

  /** Unpersists {@code rdd} once this epoch's jobs have all run. */
  public void unpersistAtEpochEnd(JavaRDD<?> rdd) {
    releases.add(() -> rdd.unpersist(false));
  }

  /** Unpersists {@code ds} once this epoch's jobs have all run. */
  public void unpersistAtEpochEnd(Dataset<?> ds) {
    releases.add(() -> ds.unpersist(false));
  }

  /** The output watermark of the step producing {@code pc}, as it is now in this epoch. */
  public Instant watermarkOf(PCollection<?> pc) {
    return watermarks.watermarkOf(pc);
  }

  /**
   * Side input {@code view} as it stands in this epoch (Beam-encoded, one window each): the
   * latest pane of every window ({@link SideInputHistory#contents}).
   */
  @Override
  public List<byte[]> sideInputContents(TranslationContext context, PCollectionView<?> view, PCollection<?> pc) {
    return sideInputs.contents(context, view, pc, epoch);
  }

  /**
   * The windows (Beam-encoded, Base64) for which side input {@code view} received a pane. Call
   * {@link #sideInputContents} first in the epoch.
   */
  public Set<String> receivedSideInputWindows(PCollectionView<?> view) {
    return sideInputs.receivedWindows(view);
  }

  /** What is committed after this epoch. */
  public EpochCommit snapshot() {
    return new EpochCommit(
        epoch,
        clock.epochTime().getMillis(),
        draining,
        keyedPartitions,
        new LinkedHashMap<>(watermarks.all()),
        progress.encode(),
        sideInputs.snapshot());
  }

  /** Continues from a committed epoch: the next epoch is the one after it. */
  public void restore(EpochCommit commit) {
    epoch = commit.epoch();
    lastCompleted = commit.epoch();
    replayLog.resumeAfter(epoch);
    clock.restore(new Instant(commit.processingTimeMillis()));
    draining = commit.draining();
    watermarks.restore(commit.watermarks());
    progress.restore(commit.progress());
    sideInputs.restore(commit.sideInputs(), "the commit of epoch " + epoch + " in --checkpointDir=" + checkpoints);
  }

  /** Every step's watermarks after the last epoch, in topological order. */
  public Map<String, OperatorWatermarks> watermarks() {
    return watermarks.all();
  }


  // The epoch loop (EpochLoop) drives the run through the methods below.

  public void beginEpoch(boolean drain) {
    epoch++;
    draining |= drain;
    active = false;
    waiting = false;
    clock.beginEpoch(epoch);
  }

  /** Whether the epoch after the restored commit had started: it runs again as it ran then. */
  public boolean replaysNextEpoch() {
    return replayLog.replaysNextEpoch();
  }

  /**
   * How many records each split of the current step, a source, read in the interrupted attempt
   * of this epoch, or null: this epoch is not run again, or the attempt had not read there.
   */
  public long @Nullable [] plannedReads() {
    return replayLog.reads(epoch, step);
  }

  /**
   * Records how many records each split of the current step, a source, read in this epoch,
   * before any step downstream of it runs: if the epoch is cut short, it runs again reading the
   * same records, and so emits the same panes to the same files.
   */
  public void recordReads(long[] reads) {
    recordReads(step, reads);
  }

  /**
   * {@link #recordReads(long[])} of source {@code stepName}, read within its epoch's leaves job
   * ({@link #runsWithLeaves}): recorded after that job, since the steps it ran emit no pane that
   * an epoch run again must repeat.
   */
  public void recordReads(String stepName, long[] reads) {
    replayLog.recordReads(epoch, stepName, reads);
  }

  /** Makes {@code name} the current step; its producers have run in this epoch already. */
  public void beginStep(String name) {
    step = name;
    clock.beginStep();
    watermarks.beginStep(name);
  }

  /** Records the current step's watermarks; true if either moved. */
  public boolean endStep() {
    step = null;
    return watermarks.endStep();
  }

  /**
   * Runs what waited for the epoch's leaves job, which ran: the sources read and the keyed steps
   * run within it report the watermarks they reached, and the steps after them, which only derive
   * their outputs from their inputs' elements, follow in this epoch. True if a watermark moved.
   */
  public boolean leavesRan() {
    if (afterLeaves.isEmpty()) {
      return false;
    }
    boolean moved = false;
    for (Runnable action : afterLeaves) {
      action.run();
      moved |= endStep();
    }
    afterLeaves.clear();
    ranWithLeaves.clear();
    for (String name : afterStepsWithLeaves) {
      beginStep(name);
      moved |= endStep();
    }
    return moved;
  }

  /** Runs the epoch-end actions if every job of the epoch ran, and releases its cached data. */
  public void endEpoch(boolean completed) {
    if (completed) {
      lastCompleted = epoch;
      for (Runnable action : atEpochEnd) {
        action.run();
      }
    }
    atEpochEnd.clear();
    afterLeaves.clear();
    ranWithLeaves.clear();
    for (Runnable release : releases) {
      release.run();
    }
    releases.clear();
  }

  public boolean active() {
    return active;
  }

  /**
   * Says that the current step has work due at a later processing time (a splittable DoFn's
   * resumption): the run waits for it, rather than ending, while its watermark is held.
   */
  public void noteWaiting() {
    waiting = true;
  }

  /** Whether some step has work due at a later processing time. */
  public boolean waiting() {
    return waiting;
  }

  /**
   * The steps whose output watermark is held before the end of time although every source's has
   * reached it: empty unless something holds a watermark it should not.
   */
  public List<String> heldAfterEndOfInput() {
    return watermarks.heldAfterEndOfInput();
  }

  /** Notes an executor (a Spark task location) where this run keeps readers or state. */
  void noteExecutor(String location) {
    executors.add(location);
  }

  /** Where each keyed partition of {@code step} ran last (null: not yet), by partition. */
  String[] partitionLocations(String step) {
    return partitionLocations.computeIfAbsent(step, k -> new String[keyedPartitions]).clone();
  }

  /** Notes where a keyed partition of {@code step} ran, and so where its state is in memory. */
  void notePartitionLocation(String step, int partition, String location) {
    partitionLocations.computeIfAbsent(step, k -> new String[keyedPartitions])[partition] = location;
    executors.add(location);
  }

  /**
   * Ends the run on the executors and in this JVM: the marks of its completed epochs are
   * finalized, its source readers closed, its keyed state forgotten and its DoFn instances torn
   * down ({@link RunCleanup}).
   */
  public void close(org.apache.spark.SparkContext sparkContext) {
    RunCleanup.run(sparkContext, runId, lastCompleted, executors);
  }

  /** Whether every step's output watermark reached the end of time. */
  public boolean finished() {
    return watermarks.finished();
  }
}
