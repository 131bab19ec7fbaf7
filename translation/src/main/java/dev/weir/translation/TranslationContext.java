package dev.weir.translation;

import dev.weir.encoders.CoderEncoders;
import dev.weir.translation.metrics.PipelineMetrics;
import dev.weir.translation.streaming.StreamingRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.runners.AppliedPTransform;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What translators share while one pipeline is translated: the Spark session, the Dataset of
 * every translated PCollection, the views, and the transform being translated now.
 *
 * <p>A PCollection with several consumers (main or side input) is persisted once, so that it
 * is computed once; {@link #close} unpersists them when the pipeline is done.
 */
public final class TranslationContext {
  private final SparkSession session;
  private final SerializablePipelineOptions options;
  private final Map<PCollection<?>, Integer> consumers;
  private final TimePolicies policies;
  private final PipelineMetrics metrics;
  private final @Nullable StreamingRun streaming;
  private final Map<PCollection<?>, Dataset<?>> datasets = new HashMap<>();
  private final Map<TupleTag<?>, PCollection<?>> viewInputs = new HashMap<>();
  private final Map<TupleTag<?>, SideInputData> sideInputs = new HashMap<>();
  private final Map<String, Dataset<?>> leaves = new LinkedHashMap<>();
  private final List<Dataset<?>> persisted = new ArrayList<>();
  private AppliedPTransform<?, ?, ?> current;
  private final Map<PCollection<?>, Dataset<?>> inputOverrides = new HashMap<>();
  /** PCollections known to hold no element in this translation (a streaming epoch's). */
  private final java.util.Set<PCollection<?>> empty = new java.util.HashSet<>();
  /** An empty Dataset per PCollection, made once per run: building its encoder costs milliseconds. */
  private final Map<PCollection<?>, Dataset<?>> emptyDatasets;

  TranslationContext(
      SparkSession session,
      SerializablePipelineOptions options,
      Map<PCollection<?>, Integer> consumers,
      TimePolicies policies,
      PipelineMetrics metrics,
      @Nullable StreamingRun streaming,
      Map<PCollection<?>, Dataset<?>> emptyDatasets) {
    this.emptyDatasets = emptyDatasets;
    this.session = session;
    this.streaming = streaming;
    this.policies = policies;
    this.metrics = metrics;
    this.options = options;
    this.consumers = consumers;
  }

  public SparkSession session() {
    return session;
  }

  /** Where executors report Beam metrics; {@code null} in the check pass. */
  public PipelineMetrics metrics() {
    return metrics;
  }

  /** The streaming run this translation is an epoch of; fails in batch. */
  public StreamingRun streaming() {
    if (streaming == null) {
      throw new IllegalStateException("Step '" + stepName() + "' is translated for streaming, but this run is batch");
    }
    return streaming;
  }

  public TimePolicies policies() {
    return policies;
  }

  public SerializablePipelineOptions options() {
    return options;
  }

  void setCurrent(AppliedPTransform<?, ?, ?> transform) {
    this.current = transform;
    inputOverrides.clear();
  }

  public AppliedPTransform<?, ?, ?> current() {
    return current;
  }

  public String stepName() {
    return current.getFullName();
  }

  /** The single main input of the current transform. */
  @SuppressWarnings("unchecked")
  public <T> PCollection<T> input() {
    return (PCollection<T>) getOnly(current.getMainInputs());
  }

  /** The single output of the current transform. */
  @SuppressWarnings("unchecked")
  public <T> PCollection<T> output() {
    return (PCollection<T>) getOnly(current.getOutputs());
  }

  public Map<TupleTag<?>, PCollection<?>> outputs() {
    return current.getOutputs();
  }

  private static PCollection<?> getOnly(Map<TupleTag<?>, PCollection<?>> map) {
    if (map.size() != 1) {
      throw new IllegalStateException("Expected exactly one PCollection, got " + map.keySet());
    }
    return map.values().iterator().next();
  }

  @SuppressWarnings("unchecked")
  public <T> Dataset<WindowedValue<T>> dataset(PCollection<T> pc) {
    Dataset<?> ds = inputOverrides.containsKey(pc) ? inputOverrides.get(pc) : datasets.get(pc);
    if (ds == null) {
      throw new IllegalStateException("PCollection " + pc + " has not been translated yet");
    }
    return (Dataset<WindowedValue<T>>) ds;
  }

  /**
   * Makes the current step read {@code ds} as {@code pc}, in place of {@code pc}'s Dataset: for a
   * streaming step that first sets aside elements it cannot process yet.
   */
  public <T> void overrideInput(PCollection<T> pc, Dataset<WindowedValue<T>> ds) {
    inputOverrides.put(pc, ds);
  }

  /** Registers the Dataset of {@code pc}; persists it when more than one transform reads it. */
  public <T> void putDataset(PCollection<T> pc, Dataset<WindowedValue<T>> ds) {
    int readers = consumers.getOrDefault(pc, 0);
    Dataset<WindowedValue<T>> named = ds;
    if (readers > 1) {
      named = ds.persist(StorageLevel.MEMORY_AND_DISK());
      persisted.add(named);
    }
    datasets.put(pc, named);
    if (readers == 0) {
      leaves.put(stepName() + " [" + pc.getName() + "]", named);
    }
  }

  /**
   * Registers {@code pc} as known to hold no element in this epoch: a source that read nothing, a
   * step that emitted nothing, or one skipped because its inputs are empty. Nothing is persisted
   * and no leaf job runs for it, and the steps reading it may skip their work ({@link #isEmpty}).
   */
  public <T> void putEmpty(PCollection<T> pc) {
    datasets.put(pc, emptyDatasets.computeIfAbsent(pc, k -> session.emptyDataset(encoder(pc))));
    empty.add(pc);
  }

  /** Registers every output of the current step as known empty ({@link #putEmpty}). */
  public void putOutputsEmpty() {
    for (PCollection<?> out : outputs().values()) {
      putEmpty(out);
    }
  }

  /** Whether {@code pc}, as the current step reads it, is known to hold no element. */
  public boolean isEmpty(PCollection<?> pc) {
    return !inputOverrides.containsKey(pc) && empty.contains(pc);
  }

  /**
   * Registers {@code ds} for {@code pc} without treating it as a leaf: for outputs that stand for
   * their input, like a view's.
   */
  public <T> void putAlias(PCollection<T> pc, Dataset<WindowedValue<T>> ds) {
    datasets.put(pc, ds);
  }

  /** Persists a Dataset that several outputs of the current step are derived from. */
  public <T> Dataset<T> persistShared(Dataset<T> ds) {
    Dataset<T> p = ds.persist(StorageLevel.MEMORY_AND_DISK());
    persisted.add(p);
    return p;
  }

  /** The Spark encoder for the windowed elements of {@code pc}. */
  public static <T> Encoder<WindowedValue<T>> encoder(PCollection<T> pc) {
    return CoderEncoders.windowed(pc.getCoder(), windowCoder(pc));
  }

  public static Coder<? extends BoundedWindow> windowCoder(PCollection<?> pc) {
    return pc.getWindowingStrategy().getWindowFn().windowCoder();
  }

  public void putView(PCollectionView<?> view, PCollection<?> elements) {
    viewInputs.put(view.getTagInternal(), elements);
  }

  /**
   * The contents of a side input, collected from its Dataset and broadcast on first use (in
   * streaming: everything it received in this epoch and the ones before). This runs a Spark job,
   * so it is called only in the translation pass, never in the check pass.
   */
  public SideInputData sideInput(PCollectionView<?> view) {
    return sideInputs.computeIfAbsent(
        view.getTagInternal(),
        tag -> {
          PCollection<?> pc = viewInput(view);
          return streaming == null
              ? SideInputData.collect(this, view, pc)
              : SideInputData.of(this, view, pc, streaming.sideInputContents(this, view, pc));
        });
  }

  /** The PCollection behind {@code view}. */
  public PCollection<?> viewInput(PCollectionView<?> view) {
    PCollection<?> pc = viewInputs.get(view.getTagInternal());
    if (pc == null) {
      throw new IllegalStateException("View " + view + " was never created in this pipeline");
    }
    return pc;
  }

  /** Datasets that no transform reads: evaluating them runs the whole pipeline. */
  Map<String, Dataset<?>> leaves() {
    return leaves;
  }

  void close() {
    for (Dataset<?> ds : persisted) {
      ds.unpersist(false);
    }
    for (SideInputData data : sideInputs.values()) {
      data.destroy();
    }
  }
}
