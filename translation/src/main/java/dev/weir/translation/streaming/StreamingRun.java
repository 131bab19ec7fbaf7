package dev.weir.translation.streaming;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.streaming.state.StateFiles;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The driver's side of one streaming run: the epoch counter, the processing clock, every step's
 * watermarks, and what each step keeps between epochs (a source's position, for instance). What
 * side inputs received is kept in a {@link SideInputHistory}; what an epoch decided, so that it
 * runs again the same way, in an {@link EpochReplayLog}.
 *
 * <p>Watermarks follow Beam's model, per step: the input watermark of a step is the minimum
 * output watermark of the steps producing its main inputs; a step's output watermark is its
 * input watermark unless it reports an earlier one (a grouping's holds) or its own (a source).
 * Idle producers (see {@link OperatorWatermarks#idle}) leave the minimum.
 * Steps run in topological order within an epoch, so a step sees the watermarks its producers
 * reached in the same epoch. It receives the epoch's elements at its previous input watermark
 * ({@link #inputWatermarkBefore}) and only then advances to the new one ({@link
 * #inputWatermark}): an element emitted upstream in this epoch is never late merely because the
 * watermark that follows it arrived in the same epoch. No watermark ever goes back.
 */
public final class StreamingRun {
  private final String runId = UUID.randomUUID().toString();
  private final StreamingSettings settings;
  private final int keyedPartitions;
  private final Map<String, List<String>> producers;
  private final Map<PCollection<?>, String> producerOf;
  private final SideInputHistory sideInputs = new SideInputHistory();
  private final Map<String, OperatorWatermarks> watermarks = new LinkedHashMap<>();
  private final Map<String, Kept<?>> progress = new HashMap<>();
  /** What the commit the run resumed from holds of the steps' progress not asked for since. */
  private final Map<String, byte[]> restoredProgress = new HashMap<>();
  private final List<Runnable> atEpochEnd = new ArrayList<>();
  private final List<Runnable> releases = new ArrayList<>();
  /** Where this run's tasks held readers or state (Spark task locations). */
  private final Set<String> executors = new HashSet<>();
  /** Where each step's keyed partitions ran last, by step. */
  private final Map<String, String[]> partitionLocations = new HashMap<>();
  /** The last epoch whose jobs all ran (and, with a checkpoint dir, that was committed). */
  private long lastCompleted = -1;
  private final boolean testClock;
  private final @Nullable CheckpointDir checkpoints;
  /** What this epoch decided, recorded so that it runs again the same way if cut short. */
  private final EpochReplayLog replayLog;
  private long epoch;
  private Instant clock;
  private boolean active;
  private boolean waiting;
  private boolean draining;
  private @Nullable String step;
  /** The current step's processing time, once asked for ({@link #stepProcessingTime}). */
  private @Nullable Instant stepClock;
  private Instant inputBefore = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private Instant inputNow = BoundedWindow.TIMESTAMP_MIN_VALUE;
  private @Nullable Instant reported;
  private boolean reportedIdle;

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
    this.producerOf = producerOf;
    this.keyedPartitions = keyedPartitions;
    this.producers = producers;
    this.testClock = testClock;
    this.clock = testClock ? BoundedWindow.TIMESTAMP_MIN_VALUE : Instant.now();
    for (String name : producers.keySet()) {
      watermarks.put(
          name, new OperatorWatermarks(BoundedWindow.TIMESTAMP_MIN_VALUE, BoundedWindow.TIMESTAMP_MIN_VALUE));
    }
  }

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
    return clock;
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
    if (stepClock == null) {
      Instant now = Instant.now();
      stepClock = testClock ? clock : replayLog.time(epoch, "clock-" + CheckpointDir.stepDir(step), now.isAfter(clock) ? now : clock);
    }
    return stepClock;
  }

  /** Moves a TestStream's processing clock on. */
  public void advanceTestClock(Duration by) {
    clock = clock.plus(by);
  }

  /** Whether the run is being drained: sources read nothing more and end their watermarks. */
  public boolean draining() {
    return draining;
  }

  /** The current step's input watermark when the epoch began. */
  public Instant inputWatermarkBefore() {
    return inputBefore;
  }

  /** The current step's input watermark now that its producers have run in this epoch. */
  public Instant inputWatermark() {
    return inputNow;
  }

  /** The current step's output watermark when the epoch began. */
  public Instant outputWatermarkBefore() {
    return watermarks.get(step).output();
  }

  /**
   * Sets the current step's output watermark for this epoch: a source's own, or a step's holds
   * already combined with its input watermark. It never goes back.
   */
  public void reportOutputWatermark(Instant watermark) {
    reported = watermark;
  }

  /** Says that the current step, a source, is idle: every split of it has gone quiet. */
  public void reportIdle() {
    reportedIdle = true;
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
  @SuppressWarnings("unchecked")
  public <T> T progressOf(String stepName, StepProgress<T> kind) {
    String key = kind.key(stepName);
    Kept<?> kept = progress.get(key);
    if (kept != null) {
      if (!kept.kind().equals(kind)) {
        throw new IllegalStateException("Step '" + stepName + "' keeps '" + kind.name() + "' of two kinds");
      }
      return (T) kept.value();
    }
    byte[] committed = restoredProgress.remove(key);
    T value;
    if (committed == null) {
      value = kind.initial().get();
    } else {
      try {
        value = CoderUtils.decodeFromByteArray(kind.coder(), committed);
      } catch (Exception e) {
        throw new IllegalStateException(
            "Step '" + stepName + "': could not read its '" + kind.name() + "' from the commit of epoch " + epoch
                + " in --checkpointDir=" + checkpoints, e);
      }
    }
    progress.put(key, new Kept<>(kind, value));
    return value;
  }

  /** What a step keeps, with its kind, so that it is committed with the kind's coder. */
  private record Kept<T>(StepProgress<T> kind, T value) {
    byte[] encode() {
      try {
        return CoderUtils.encodeToByteArray(kind.coder(), value);
      } catch (Exception e) {
        throw new IllegalStateException("Could not encode '" + kind.name() + "' for the epoch's commit", e);
      }
    }
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
    return watermarks.get(producerOf.get(pc)).output();
  }

  /**
   * Side input {@code view} as it stands in this epoch (Beam-encoded, one window each): the
   * latest pane of every window ({@link SideInputHistory#contents}).
   */
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
    Map<String, byte[]> kept = new HashMap<>(restoredProgress);
    for (Map.Entry<String, Kept<?>> p : progress.entrySet()) {
      kept.put(p.getKey(), p.getValue().encode());
    }
    return new EpochCommit(
        epoch, clock.getMillis(), draining, keyedPartitions, new LinkedHashMap<>(watermarks), kept, sideInputs.snapshot());
  }

  /** Continues from a committed epoch: the next epoch is the one after it. */
  public void restore(EpochCommit commit) {
    epoch = commit.epoch();
    lastCompleted = commit.epoch();
    replayLog.resumeAfter(epoch);
    Instant committedClock = new Instant(commit.processingTimeMillis());
    if (testClock || committedClock.isAfter(clock)) {
      clock = committedClock;
    }
    draining = commit.draining();
    for (Map.Entry<String, OperatorWatermarks> w : commit.watermarks().entrySet()) {
      if (watermarks.containsKey(w.getKey())) {
        watermarks.put(w.getKey(), w.getValue());
      }
    }
    progress.clear();
    restoredProgress.putAll(commit.progress());
    sideInputs.restore(commit.sideInputs(), "the commit of epoch " + epoch + " in --checkpointDir=" + checkpoints);
  }

  /** Every step's watermarks after the last epoch, in topological order. */
  public Map<String, OperatorWatermarks> watermarks() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(watermarks));
  }


  // The epoch loop (PipelineTranslator) drives the run through the methods below.

  public void beginEpoch(boolean drain) {
    epoch++;
    draining |= drain;
    active = false;
    waiting = false;
    if (!testClock) {
      Instant now = Instant.now();
      if (now.isAfter(clock)) {
        clock = now;
      }
    }
    clock = replayLog.time(epoch, "clock", clock);
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
    replayLog.recordReads(epoch, step, reads);
  }

  /** Makes {@code name} the current step; its producers have run in this epoch already. */
  public void beginStep(String name) {
    step = name;
    stepClock = null;
    reported = null;
    reportedIdle = false;
    inputBefore = watermarks.get(name).input();
    // Idle producers leave the minimum; when all are idle, so is this step, and it keeps its
    // input watermark where it was.
    Instant in = null;
    for (String producer : producers.get(name)) {
      OperatorWatermarks upstream = watermarks.get(producer);
      if (!upstream.idle() && (in == null || upstream.output().isBefore(in))) {
        in = upstream.output();
      }
    }
    if (in == null) {
      in = producers.get(name).isEmpty() ? BoundedWindow.TIMESTAMP_MAX_VALUE : inputBefore;
    }
    inputNow = max(inputBefore, in);
  }

  /** Records the current step's watermarks; true if either moved. */
  public boolean endStep() {
    OperatorWatermarks before = watermarks.get(step);
    Instant out = max(before.output(), reported != null ? reported : inputNow);
    List<String> upstream = producers.get(step);
    boolean idle = upstream.isEmpty() ? reportedIdle : upstream.stream().allMatch(p -> watermarks.get(p).idle());
    OperatorWatermarks after = new OperatorWatermarks(inputNow, out, idle);
    watermarks.put(step, after);
    step = null;
    return !after.equals(before);
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
    List<String> held = new ArrayList<>();
    for (Map.Entry<String, OperatorWatermarks> w : watermarks.entrySet()) {
      boolean source = producers.get(w.getKey()).isEmpty();
      if (w.getValue().output().isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        if (source) {
          return List.of();
        }
        held.add(w.getKey() + " (" + w.getValue() + ")");
      }
    }
    return held;
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
    for (OperatorWatermarks w : watermarks.values()) {
      if (w.output().isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        return false;
      }
    }
    return true;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
