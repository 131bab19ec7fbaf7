package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.PipelineTranslator;
import dev.weir.translation.PipelineTranslator.Step;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.metrics.PipelineMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming execution of a checked plan ({@link PipelineTranslator#check}): an operator per
 * step, built and opened once ({@link StepOperator}), run once per epoch over a {@link
 * StreamingRun} in topological order, and the epoch's leaves evaluated in one job, until every
 * watermark reaches the end of time ({@link #run}).
 */
public final class EpochLoop {
  private static final Logger LOG = LoggerFactory.getLogger(EpochLoop.class);

  private EpochLoop() {}

  /**
   * Whether a streaming step has nothing to do this epoch: it emits nothing from nothing, and each
   * of its main inputs is known empty. Its watermark still moves with its inputs'.
   */
  private static boolean nothingToDo(Step step, TranslationContext context) {
    if (!step.translator().emitsNothingFromNothing(step.applied().getTransform())) {
      return false;
    }
    for (PCollection<?> in : step.applied().getMainInputs().values()) {
      if (!context.isEmpty(in)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The steps that can run within the epoch's leaves job ({@link RunsWithLeaves}: unbounded
   * sources, groupings and stateful DoFns): those followed by one chain of steps that each derive their outputs
   * lazily ({@link dev.weir.translation.TransformTranslator#derivesLazily}), with no fan-out
   * ({@link #lazyDownstream}). One job per epoch then reads a source's records, or runs a keyed
   * step's partitions, and processes what they give, instead of one job for each.
   */
  static Set<String> withLeaves(List<Step> steps) {
    Map<PCollection<?>, List<Step>> readers = new HashMap<>();
    for (Step step : steps) {
      for (PCollection<?> in : step.applied().getInputs().values()) {
        readers.computeIfAbsent(in, k -> new ArrayList<>()).add(step);
      }
    }
    Set<String> first = new HashSet<>();
    for (Step step : steps) {
      if (canRunWithLeaves(step) && lazyDownstream(step, readers)) {
        first.add(step.applied().getFullName());
      }
    }
    return first;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean canRunWithLeaves(Step step) {
    return step.translator() instanceof RunsWithLeaves
        && ((RunsWithLeaves) step.translator()).canRunWithLeaves(step.applied().getTransform());
  }

  /**
   * Whether the steps after {@code first} form one chain of lazily derived steps, each with one
   * output read at most once. Where data fans out, Spark persists it and, in a job that first
   * computes it, tasks of several branches may each compute it: on two executors a split would be
   * read twice (a keyed partition run twice), and a task retried after filling that cache would
   * not report its read again.
   */
  private static boolean lazyDownstream(Step first, Map<PCollection<?>, List<Step>> readers) {
    Step step = first;
    while (true) {
      if (step.applied().getOutputs().size() != 1) {
        return false;
      }
      List<Step> next = readers.getOrDefault(step.applied().getOutputs().values().iterator().next(), List.of());
      if (next.isEmpty()) {
        return true;
      }
      // A step reading it as a side input is no such step: it waits on the read's outcome.
      if (next.size() > 1 || !next.get(0).translator().derivesLazily(next.get(0).applied().getTransform())) {
        return false;
      }
      step = next.get(0);
    }
  }

  /**
   * Evaluates an epoch's leaves, the data no step reads, in one Spark job over all of them (one
   * job's scheduling instead of one per leaf), described by the steps run within it and the
   * leaves' steps.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void runLeaves(SparkContext sc, TranslationContext context) {
    List<String> names = new ArrayList<>(StreamingRun.of(context).ranWithLeaves());
    List<JavaRDD<Object>> leaves = new ArrayList<>();
    for (Map.Entry<String, JavaRDD<?>> leaf : context.rddLeaves().entrySet()) {
      names.add(leaf.getKey());
      leaves.add((JavaRDD) leaf.getValue());
    }
    for (Map.Entry<String, Dataset<?>> leaf : context.leaves().entrySet()) {
      names.add(leaf.getKey());
      leaves.add((JavaRDD) leaf.getValue().toJavaRDD());
    }
    if (leaves.isEmpty()) {
      return;
    }
    sc.setJobDescription(String.join(", ", names));
    JavaRDD<Object> all =
        leaves.size() == 1 ? leaves.get(0) : JavaSparkContext.fromSparkContext(sc).union(leaves.toArray(new JavaRDD[0]));
    Rdds.drain(all);
  }

  /**
   * Each step's operator, built and opened once for the run, in the plan's order: the one its
   * translator builds ({@link OperatorTranslator}), or one that translates the step every epoch.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<StepOperator> open(
      PipelineTranslator plan,
      SparkSession session,
      SerializablePipelineOptions options,
      PipelineMetrics metrics,
      StreamingRun run,
      Map<PCollection<?>, Dataset<?>> emptyDatasets) {
    List<StepOperator> operators = new ArrayList<>();
    TranslationContext context = plan.newContext(session, options, metrics, run, emptyDatasets);
    try {
      for (Step step : plan.steps()) {
        PTransform transform = step.applied().getTransform();
        StepOperator operator = step.translator() instanceof OperatorTranslator
            ? ((OperatorTranslator) step.translator()).operator(transform)
            : new TranslatedEachEpoch(step.translator(), transform);
        context.setCurrent(step.applied());
        operator.open(context);
        operators.add(operator);
      }
    } finally {
      context.close();
    }
    return operators;
  }

  /** The operator of a step whose translator builds none: the step translated every epoch. */
  private static final class TranslatedEachEpoch implements StepOperator {
    private final TransformTranslator<PTransform<?, ?>> translator;
    private final PTransform<?, ?> transform;

    TranslatedEachEpoch(TransformTranslator<PTransform<?, ?>> translator, PTransform<?, ?> transform) {
      this.translator = translator;
      this.transform = transform;
    }

    @Override
    public void processEpoch(TranslationContext context) {
      translator.translate(transform, context);
    }
  }

  /**
   * Runs a streaming pipeline as epochs until every watermark reaches the end of time or {@code
   * control} asks it to stop, checked between epochs (a drain instead lets it finish without
   * reading more). Each step's operator is built and opened once, before the first epoch. Each
   * epoch: every TestStream takes its next event; then the operators run in topological order
   * against this epoch's data, each after its producers, so it sees the watermarks they reached
   * in this epoch; steps that keep
   * state run their Spark job right away, the leaves run at the end, in one job; a step whose inputs are known
   * empty and that has nothing due runs no job; then watermarks and
   * epoch-end actions (finalizing checkpoint marks) are settled. Every epoch's jobs form one
   * Spark job group, {@code jobGroup-epoch-N}, each job described by its Beam step.
   *
   * @return whether the pipeline finished (false: stopped first)
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static boolean run(
      PipelineTranslator plan,
      SparkSession session,
      PipelineOptions options,
      PipelineMetrics metrics,
      StreamingSettings settings,
      String jobGroup,
      StreamingControl control)
      throws InterruptedException {
    if (!plan.streaming()) {
      throw new IllegalStateException("This plan was checked for batch");
    }
    List<Step> steps = plan.steps();
    Map<PCollection<?>, String> producerOf = new HashMap<>();
    Map<String, List<String>> producers = new LinkedHashMap<>();
    boolean testClock = false;
    for (Step step : steps) {
      List<String> upstream = new ArrayList<>();
      for (PCollection<?> in : step.applied().getMainInputs().values()) {
        String producer = producerOf.get(in);
        if (producer != null && !upstream.contains(producer)) {
          upstream.add(producer);
        }
      }
      producers.put(step.applied().getFullName(), upstream);
      for (PCollection<?> out : step.applied().getOutputs().values()) {
        producerOf.put(out, step.applied().getFullName());
      }
      testClock |= step.applied().getTransform() instanceof TestStream;
    }
    SparkContext sc = session.sparkContext();
    SerializablePipelineOptions serializableOptions = new SerializablePipelineOptions(options);
    CheckpointDir checkpoints = null;
    EpochCommit committed = null;
    if (settings.checkpointDir() != null) {
      checkpoints = new CheckpointDir(sc, settings.checkpointDir());
      try {
        checkpoints.checkPipeline(plan.stateLayout());
        checkpoints.checkStateBackend(settings.stateBackend().name());
        committed = checkpoints.latest();
        if (committed != null) {
          checkpoints.discardAfter(committed.epoch());
        }
      } catch (IOException e) {
        throw new IllegalStateException("--checkpointDir=" + checkpoints + ": " + e.getMessage(), e);
      }
    }
    // Keys are spread over a partition count fixed for the run, and for its restarts.
    int partitions = committed != null ? committed.keyedPartitions() : sc.defaultParallelism();
    StreamingRun run = new StreamingRun(settings, partitions, producers, producerOf, testClock, checkpoints);
    run.runWithLeaves(withLeaves(steps));
    Map<PCollection<?>, Dataset<?>> emptyDatasets = new HashMap<>();
    if (committed != null) {
      run.restore(committed);
      LOG.info(
          "Resuming after epoch {}, committed in --checkpointDir={}{}",
          committed.epoch(),
          checkpoints,
          run.replaysNextEpoch() ? "; epoch " + (committed.epoch() + 1) + " runs again with the clock and reads it had" : "");
    }
    try {
      if (run.finished()) {
        return true;
      }
      List<StepOperator> operators = open(plan, session, serializableOptions, metrics, run, emptyDatasets);
      while (!control.stopRequested()) {
        run.beginEpoch(control.drainRequested());
        sc.setJobGroup(jobGroup + "-epoch-" + run.epoch(), "epoch " + run.epoch(), false);
        for (StepOperator operator : operators) {
          operator.startEpoch(run);
        }
        TranslationContext context = plan.newContext(session, serializableOptions, metrics, run, emptyDatasets);
        boolean moved = false;
        boolean completed = false;
        try {
          for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            context.setCurrent(step.applied());
            run.beginStep(step.applied().getFullName());
            if (nothingToDo(step, context)) {
              context.putOutputsEmpty();
            } else {
              operators.get(i).processEpoch(context);
            }
            moved |= run.endStep();
          }
          runLeaves(sc, context);
          moved |= run.leavesRan();
          if (checkpoints != null) {
            // Committed before the sources' marks are finalized (at the epoch's end, below):
            // a source may forget what a finalized mark covers.
            try {
              checkpoints.commit(run.snapshot());
            } catch (IOException e) {
              throw new IllegalStateException(
                  "Could not commit epoch " + run.epoch() + " to --checkpointDir=" + checkpoints, e);
            }
          }
          completed = true;
        } finally {
          sc.setJobDescription(null);
          context.close();
          // A failed epoch releases its cached data but finalizes nothing: its sources' data
          // was not all processed.
          run.endEpoch(completed);
          metrics.settle(completed);
        }
        Map<String, OperatorWatermarks> watermarks = run.watermarks();
        if (LOG.isDebugEnabled()) {
          LOG.debug("Epoch {} watermarks: {}", run.epoch(), watermarks);
        }
        control.afterEpoch(run.epoch(), watermarks);
        if (run.finished()) {
          return true;
        }
        if (!moved && !run.active()) {
          List<String> held = run.waiting() ? List.of() : run.heldAfterEndOfInput();
          if (!held.isEmpty()) {
            throw new IllegalStateException(
                "Every source reached the end of time, but these steps hold their watermark: " + held);
          }
          Thread.sleep(settings.idleWaitMillis());
        }
      }
      return false;
    } finally {
      sc.clearJobGroup();
      run.close(sc);
    }
  }
}
