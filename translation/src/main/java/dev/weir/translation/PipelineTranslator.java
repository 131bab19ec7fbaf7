package dev.weir.translation;

import dev.weir.translation.metrics.PipelineMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates a pipeline onto Spark RDDs and Datasets, in named passes (a streaming pipeline runs the last
 * two every epoch, in {@code streaming.EpochLoop}, through an operator per step built once):
 *
 * <ol>
 *   <li><b>check</b> ({@link #check}): walks the expanded DAG in topological order, picks for
 *       each node the translator that takes it whole, counts the consumers of every PCollection,
 *       and fails on the first transform nothing can translate, naming the step, the transform
 *       and why. No Spark job runs in this pass.
 *   <li><b>translation</b> ({@link #execute}): each translator builds its lazy RDDs or Datasets; a
 *       PCollection read by several transforms is persisted once, unless in batch its readers
 *       can all run in one pass over it ({@link TransformTranslator#sharesInputPass}); side
 *       inputs are collected and broadcast when first read.
 *   <li><b>evaluation</b>: every leaf (a PCollection that nothing reads) is computed in one
 *       Spark job described by its Beam step name.
 * </ol>
 */
public final class PipelineTranslator {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineTranslator.class);

  private final List<Step> steps;
  private final Map<PCollection<?>, Integer> consumers;
  private final Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> sharedPasses;
  private final TimePolicies policies;
  private final boolean streaming;

  private PipelineTranslator(
      List<Step> steps,
      Map<PCollection<?>, Integer> consumers,
      Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> sharedPasses,
      TimePolicies policies,
      boolean streaming) {
    this.steps = steps;
    this.consumers = consumers;
    this.sharedPasses = sharedPasses;
    this.policies = policies;
    this.streaming = streaming;
  }

  /** One node of the plan: a transform and the translator that takes it whole. */
  public record Step(AppliedPTransform<?, ?, ?> applied, TransformTranslator<PTransform<?, ?>> translator) {}

  /** The plan's steps, in topological order. */
  public List<Step> steps() {
    return steps;
  }

  /** Whether the plan was checked for streaming (its translators are streaming's). */
  public boolean streaming() {
    return streaming;
  }

  /**
   * A translation of the plan on {@code session}, reporting Beam metrics to {@code metrics}: the
   * whole run in batch, one epoch of {@code epoch} in streaming. {@code emptyDatasets} is kept
   * across a run's translations (an empty Dataset per PCollection: its encoder is costly to build).
   */
  public TranslationContext newContext(
      SparkSession session,
      SerializablePipelineOptions options,
      PipelineMetrics metrics,
      @Nullable StreamingEpoch epoch,
      Map<PCollection<?>, Dataset<?>> emptyDatasets) {
    return new TranslationContext(session, options, consumers, sharedPasses, policies, metrics, epoch, emptyDatasets);
  }

  /**
   * The check pass, with the translators of one mode ({@code batch.BatchTranslators.INSTANCE} or
   * {@code streaming.StreamingTranslators.INSTANCE}).
   *
   * @throws UnsupportedOperationException naming the first step that cannot be translated
   */
  public static PipelineTranslator check(Pipeline pipeline, TimePolicies policies, TranslatorRegistry translators) {
    boolean streaming = translators.streaming();
    List<Step> steps = new ArrayList<>();
    Map<PCollection<?>, Integer> consumers = new HashMap<>();
    TranslationContext probe =
        new TranslationContext(null, null, consumers, Map.of(), policies, null, null, new HashMap<>());
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
            return translators.translatorFor(transform);
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
    return new PipelineTranslator(
        steps, consumers, streaming ? Map.of() : sharedPasses(steps, consumers), policies, streaming);
  }

  /**
   * The PCollections of a batch plan that are not persisted for their readers because those can
   * run in one pass over them, each with its readers in plan order: read by more than one step,
   * every reader's only input, every reader able to share the pass
   * ({@link TransformTranslator#sharesInputPass}), and in the same windows as every output of its
   * readers (one pass writes their outputs as one Dataset of one window coder).
   */
  private static Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> sharedPasses(
      List<Step> steps, Map<PCollection<?>, Integer> consumers) {
    Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> readers = new HashMap<>();
    java.util.Set<PCollection<?>> excluded = new java.util.HashSet<>();
    for (Step step : steps) {
      AppliedPTransform<?, ?, ?> applied = step.applied();
      Map<?, PCollection<?>> inputs = applied.getInputs();
      boolean shares = inputs.size() == 1 && step.translator().sharesInputPass(applied.getTransform());
      for (PCollection<?> input : inputs.values()) {
        if (shares && sameWindows(input, applied.getOutputs().values())) {
          readers.computeIfAbsent(input, k -> new ArrayList<>()).add(applied);
        } else {
          excluded.add(input);
        }
      }
    }
    Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> shared = new HashMap<>();
    readers.forEach((pc, list) -> {
      if (list.size() > 1 && !excluded.contains(pc) && consumers.getOrDefault(pc, 0) == list.size()) {
        shared.put(pc, List.copyOf(list));
      }
    });
    return shared;
  }

  private static boolean sameWindows(PCollection<?> input, java.util.Collection<PCollection<?>> outputs) {
    Object windowCoder = input.getWindowingStrategy().getWindowFn().windowCoder();
    return outputs.stream().allMatch(out -> out.getWindowingStrategy().getWindowFn().windowCoder().equals(windowCoder));
  }

  private static UnsupportedOperationException unsupported(TransformHierarchy.Node node, String why) {
    return new UnsupportedOperationException(
        "Step '" + node.getFullName() + "' (" + node.getTransform().getClass().getName()
            + ") cannot run on WeirRunner: " + why);
  }

  /**
   * The plan, one line per step: the Beam step name and the translator that runs it; then, in
   * batch, a line per PCollection whose readers run in one pass over it, naming them.
   */
  public String explain() {
    StringBuilder sb = new StringBuilder();
    for (Step step : steps) {
      sb.append(step.applied().getFullName())
          .append(" -> ")
          .append(step.translator().getClass().getSimpleName())
          .append('\n');
    }
    java.util.Set<PCollection<?>> named = new java.util.HashSet<>();
    for (Step step : steps) {
      for (PCollection<?> input : step.applied().getInputs().values()) {
        List<AppliedPTransform<?, ?, ?>> readers = sharedPasses.get(input);
        if (readers != null && named.add(input)) {
          sb.append("one pass over ").append(input.getName()).append(": ")
              .append(String.join(", ", readers.stream().map(AppliedPTransform::getFullName).toList()))
              .append('\n');
        }
      }
    }
    return sb.toString();
  }

  /**
   * What a streaming checkpoint's keyed state is laid out by: the plan, and {@code
   * --windowTriggers}, under which a triggered Combine keeps either ReduceFnRunner's state or,
   * its triggers ignored, its own per window ({@code EndOfWindowCombining}).
   */
  public String stateLayout() {
    return explain() + "--windowTriggers=" + policies.windowTriggers() + '\n';
  }

  /**
   * The translation and evaluation passes: runs the pipeline on {@code session}, reporting Beam
   * metrics to {@code metrics}.
   */
  public void execute(SparkSession session, PipelineOptions options, PipelineMetrics metrics) {
    TranslationContext context = new TranslationContext(
        session, new SerializablePipelineOptions(options), consumers, sharedPasses, policies, metrics, null, new HashMap<>());
    SparkContext sc = session.sparkContext();
    try {
      for (Step step : steps) {
        context.setCurrent(step.applied());
        step.translator().translate(step.applied().getTransform(), context);
      }
      for (Map.Entry<String, Dataset<?>> leaf : context.leaves().entrySet()) {
        sc.setJobDescription(leaf.getKey());
        // Spark's "noop" sink runs the whole plan without turning rows back into objects, and
        // as a Dataset action it shows in the Spark UI's SQL tab under the step's name.
        leaf.getValue().write().format("noop").mode(SaveMode.Overwrite).save();
      }
      for (Map.Entry<String, JavaRDD<?>> leaf : context.rddLeaves().entrySet()) {
        sc.setJobDescription(leaf.getKey());
        Rdds.drain(leaf.getValue());
      }
    } finally {
      sc.setJobDescription(null);
      context.close();
    }
  }
}
