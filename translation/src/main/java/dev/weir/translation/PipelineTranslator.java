package dev.weir.translation;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import dev.weir.translation.streaming.CheckpointDir;
import dev.weir.translation.streaming.EpochCommit;
import dev.weir.translation.streaming.EpochStartListener;
import dev.weir.translation.streaming.OperatorWatermarks;
import dev.weir.translation.streaming.StreamingControl;
import dev.weir.translation.streaming.StreamingRun;
import dev.weir.translation.streaming.StreamingSettings;
import org.apache.beam.sdk.testing.TestStream;
import java.util.Map;
import dev.weir.translation.metrics.PipelineMetrics;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.runners.AppliedPTransform;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.VoidFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates a pipeline onto Spark Datasets, in named passes (a streaming pipeline repeats the
 * last two every epoch, see {@link #executeStreaming}):
 *
 * <ol>
 *   <li><b>check</b> ({@link #check}): walks the expanded DAG in topological order, picks for
 *       each node the translator that takes it whole, counts the consumers of every PCollection,
 *       and fails on the first transform nothing can translate, naming the step, the transform
 *       and why. No Spark job runs in this pass.
 *   <li><b>translation</b> ({@link #execute}): each translator builds its lazy Datasets; a
 *       PCollection read by several transforms is persisted once; side inputs are collected and
 *       broadcast when first read.
 *   <li><b>evaluation</b>: every leaf Dataset (one that nothing reads) is computed in one Spark
 *       job described by its Beam step name.
 * </ol>
 */
public final class PipelineTranslator {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineTranslator.class);

  private final List<Step> steps;
  private final Map<PCollection<?>, Integer> consumers;
  private final TimePolicies policies;
  private final boolean streaming;

  private PipelineTranslator(
      List<Step> steps, Map<PCollection<?>, Integer> consumers, TimePolicies policies, boolean streaming) {
    this.steps = steps;
    this.consumers = consumers;
    this.policies = policies;
    this.streaming = streaming;
  }

  /** One node of the plan: a transform and the translator that takes it whole. */
  private static final class Step {
    final AppliedPTransform<?, ?, ?> applied;
    final TransformTranslator<PTransform<?, ?>> translator;

    Step(AppliedPTransform<?, ?, ?> applied, TransformTranslator<PTransform<?, ?>> translator) {
      this.applied = applied;
      this.translator = translator;
    }
  }

  /**
   * The check pass.
   *
   * @throws UnsupportedOperationException naming the first step that cannot be translated
   */
  public static PipelineTranslator check(Pipeline pipeline, TimePolicies policies, boolean streaming) {
    List<Step> steps = new ArrayList<>();
    Map<PCollection<?>, Integer> consumers = new HashMap<>();
    TranslationContext probe = new TranslationContext(null, null, consumers, policies, null, null, new HashMap<>());
    String mode = streaming ? "streaming" : "batch";
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.isRootNode()) {
              return CompositeBehavior.ENTER_TRANSFORM;
            }
            TransformTranslator<PTransform<?, ?>> translator = translator(node.getTransform());
            if (translator == null) {
              return CompositeBehavior.ENTER_TRANSFORM;
            }
            AppliedPTransform<?, ?, ?> applied = node.toAppliedPTransform(pipeline);
            probe.setCurrent(applied);
            String why = translator.whyNot(node.getTransform(), probe);
            if (why != null) {
              LOG.debug("Expanding {}: {}", node.getFullName(), why);
              return CompositeBehavior.ENTER_TRANSFORM;
            }
            add(node, applied, translator);
            return CompositeBehavior.DO_NOT_ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            PTransform<?, ?> transform = node.getTransform();
            TransformTranslator<PTransform<?, ?>> translator = translator(transform);
            if (translator == null) {
              throw unsupported(node, "WeirRunner has no " + mode + " translation for this primitive transform");
            }
            AppliedPTransform<?, ?, ?> applied = node.toAppliedPTransform(pipeline);
            probe.setCurrent(applied);
            String why = translator.whyNot(transform, probe);
            if (why != null) {
              throw unsupported(node, why);
            }
            add(node, applied, translator);
          }

          private TransformTranslator<PTransform<?, ?>> translator(PTransform<?, ?> transform) {
            return streaming ? TranslatorRegistry.streaming(transform) : TranslatorRegistry.batch(transform);
          }

          private void add(
              TransformHierarchy.Node node,
              AppliedPTransform<?, ?, ?> applied,
              TransformTranslator<PTransform<?, ?>> translator) {
            for (PValue input : node.getInputs().values()) {
              if (input instanceof PCollection) {
                consumers.merge((PCollection<?>) input, 1, Integer::sum);
              }
            }
            steps.add(new Step(applied, translator));
          }
        });
    return new PipelineTranslator(steps, consumers, policies, streaming);
  }

  private static UnsupportedOperationException unsupported(TransformHierarchy.Node node, String why) {
    return new UnsupportedOperationException(
        "Step '" + node.getFullName() + "' (" + node.getTransform().getClass().getName()
            + ") cannot run on WeirRunner: " + why);
  }

  /** The plan, one line per step: the Beam step name and the translator that runs it. */
  public String explain() {
    StringBuilder sb = new StringBuilder();
    for (Step step : steps) {
      sb.append(step.applied.getFullName())
          .append(" -> ")
          .append(step.translator.getClass().getSimpleName())
          .append('\n');
    }
    return sb.toString();
  }

  /**
   * The translation and evaluation passes: runs the pipeline on {@code session}, reporting Beam
   * metrics to {@code metrics}.
   */
  public void execute(SparkSession session, PipelineOptions options, PipelineMetrics metrics) {
    TranslationContext context =
        new TranslationContext(session, new SerializablePipelineOptions(options), consumers, policies, metrics, null, new HashMap<>());
    SparkContext sc = session.sparkContext();
    try {
      for (Step step : steps) {
        context.setCurrent(step.applied);
        step.translator.translate(step.applied.getTransform(), context);
      }
      for (Map.Entry<String, Dataset<?>> leaf : context.leaves().entrySet()) {
        sc.setJobDescription(leaf.getKey());
        // Spark's "noop" sink runs the whole plan without turning rows back into objects, and
        // as a Dataset action it shows in the Spark UI's SQL tab under the step's name.
        leaf.getValue().write().format("noop").mode(SaveMode.Overwrite).save();
      }
    } finally {
      sc.setJobDescription(null);
      context.close();
    }
  }

  /**
   * Whether a streaming step has nothing to do this epoch: it emits nothing from nothing, and each
   * of its main inputs is known empty. Its watermark still moves with its inputs'.
   */
  private static boolean nothingToDo(Step step, TranslationContext context) {
    if (!step.translator.emitsNothingFromNothing(step.applied.getTransform())) {
      return false;
    }
    for (PCollection<?> in : step.applied.getMainInputs().values()) {
      if (!context.isEmpty(in)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Evaluates an epoch's leaves, the data no step reads, in one Spark job over all of them (one
   * job's scheduling instead of one per leaf), described by their steps.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void runLeaves(SparkContext sc, TranslationContext context) {
    List<String> names = new ArrayList<>();
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
    all.foreachPartition(new Drain());
  }

  /** Consumes a partition: its elements were computed for their effects. */
  private static final class Drain implements VoidFunction<java.util.Iterator<Object>> {
    @Override
    public void call(java.util.Iterator<Object> partition) {
      while (partition.hasNext()) {
        partition.next();
      }
    }
  }

  /**
   * Runs a streaming pipeline as epochs until every watermark reaches the end of time or {@code
   * control} asks it to stop, checked between epochs (a drain instead lets it finish without
   * reading more). Each epoch: every TestStream takes its next
   * event; then the steps are translated in topological order against this epoch's data, each
   * after its producers, so it sees the watermarks they reached in this epoch; steps that keep
   * state run their Spark job right away, the leaves run at the end, in one job; a step whose inputs are known
   * empty and that has nothing due runs no job; then watermarks and
   * epoch-end actions (finalizing checkpoint marks) are settled. Every epoch's jobs form one
   * Spark job group, {@code jobGroup-epoch-N}, each job described by its Beam step.
   *
   * @return whether the pipeline finished (false: stopped first)
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public boolean executeStreaming(
      SparkSession session,
      PipelineOptions options,
      PipelineMetrics metrics,
      StreamingSettings settings,
      String jobGroup,
      StreamingControl control)
      throws InterruptedException {
    if (!streaming) {
      throw new IllegalStateException("This plan was checked for batch");
    }
    Map<PCollection<?>, String> producerOf = new HashMap<>();
    Map<String, List<String>> producers = new LinkedHashMap<>();
    boolean testClock = false;
    for (Step step : steps) {
      List<String> upstream = new ArrayList<>();
      for (PCollection<?> in : step.applied.getMainInputs().values()) {
        String producer = producerOf.get(in);
        if (producer != null && !upstream.contains(producer)) {
          upstream.add(producer);
        }
      }
      producers.put(step.applied.getFullName(), upstream);
      for (PCollection<?> out : step.applied.getOutputs().values()) {
        producerOf.put(out, step.applied.getFullName());
      }
      testClock |= step.applied.getTransform() instanceof TestStream;
    }
    SparkContext sc = session.sparkContext();
    SerializablePipelineOptions serializableOptions = new SerializablePipelineOptions(options);
    CheckpointDir checkpoints = null;
    EpochCommit committed = null;
    if (settings.checkpointDir() != null) {
      checkpoints = new CheckpointDir(sc, settings.checkpointDir());
      try {
        checkpoints.checkPipeline(explain());
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
      while (!control.stopRequested()) {
        run.beginEpoch(control.drainRequested());
        sc.setJobGroup(jobGroup + "-epoch-" + run.epoch(), "epoch " + run.epoch(), false);
        for (Step step : steps) {
          if (step.translator instanceof EpochStartListener) {
            ((EpochStartListener) step.translator)
                .onEpochStart(step.applied.getTransform(), step.applied.getFullName(), run);
          }
        }
        TranslationContext context =
            new TranslationContext(session, serializableOptions, consumers, policies, metrics, run, emptyDatasets);
        boolean moved = false;
        boolean completed = false;
        try {
          for (Step step : steps) {
            context.setCurrent(step.applied);
            run.beginStep(step.applied.getFullName());
            if (nothingToDo(step, context)) {
              context.putOutputsEmpty();
            } else {
              step.translator.translate(step.applied.getTransform(), context);
            }
            moved |= run.endStep();
          }
          runLeaves(sc, context);
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
