package dev.weir.translation;

import dev.weir.encoders.CoderEncoders;
import dev.weir.translation.metrics.PipelineMetrics;
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
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What translators share while one pipeline is translated: the Spark session, the data of every
 * translated PCollection, the views, and the transform being translated now.
 *
 * <p>A PCollection's data is an RDD of its elements ({@link #putRdd}) wherever the steps that make
 * it run Beam's code alone, or a Dataset where Spark SQL does the work (a triggered grouping, a
 * reshuffle). An RDD costs no query analysis, encoder binding or code generation when it is
 * built, which a Dataset does once per pipeline in batch and every epoch in streaming. Either is
 * turned into the other when a step asks for it ({@link #dataset}, {@link #rdd}).
 *
 * <p>A PCollection with several consumers (main or side input) is persisted once, so that it
 * is computed once; {@link #close} unpersists them when the pipeline (or epoch) is done. In batch,
 * one whose readers can all run in one pass over it ({@link #sharedPassReaders}) is not: that
 * pass computes it once, and only the readers' outputs are persisted.
 */
public final class TranslationContext {
  private final SparkSession session;
  private final SerializablePipelineOptions options;
  private final Map<PCollection<?>, Integer> consumers;
  private final Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> sharedPasses;
  /** Per PCollection of {@link #sharedPasses}, the persisted outputs of its one pass, once built. */
  private final Map<PCollection<?>, Dataset<?>> sharedPassOutputs = new HashMap<>();
  /** The same, where {@code pc} is an RDD: its pass runs on the RDD. */
  private final Map<PCollection<?>, JavaRDD<?>> sharedPassRdds = new HashMap<>();
  private final TimePolicies policies;
  private final PipelineMetrics metrics;
  private final @Nullable StreamingEpoch streaming;
  private final Map<PCollection<?>, Dataset<?>> datasets = new HashMap<>();
  private final Map<TupleTag<?>, PCollection<?>> viewInputs = new HashMap<>();
  private final Map<TupleTag<?>, SideInputData> sideInputs = new HashMap<>();
  private final Map<String, Dataset<?>> leaves = new LinkedHashMap<>();
  private final List<Dataset<?>> persisted = new ArrayList<>();
  private AppliedPTransform<?, ?, ?> current;
  private final Map<PCollection<?>, JavaRDD<?>> inputOverrides = new HashMap<>();
  /** Streaming: PCollections held as RDDs of their elements. */
  private final Map<PCollection<?>, JavaRDD<?>> rdds = new HashMap<>();
  /** Datasets made from {@link #rdds} for the steps that asked for one. */
  private final Map<PCollection<?>, Dataset<?>> fromRdds = new HashMap<>();
  private final Map<String, JavaRDD<?>> rddLeaves = new LinkedHashMap<>();
  private final List<JavaRDD<?>> persistedRdds = new ArrayList<>();
  /** PCollections known to hold no element in this translation (a streaming epoch's). */
  private final java.util.Set<PCollection<?>> empty = new java.util.HashSet<>();
  /** An empty Dataset per PCollection, made once per run when a step asks for one: building its encoder costs milliseconds. */
  private final Map<PCollection<?>, Dataset<?>> emptyDatasets;

  TranslationContext(
      SparkSession session,
      SerializablePipelineOptions options,
      Map<PCollection<?>, Integer> consumers,
      Map<PCollection<?>, List<AppliedPTransform<?, ?, ?>>> sharedPasses,
      TimePolicies policies,
      PipelineMetrics metrics,
      @Nullable StreamingEpoch streaming,
      Map<PCollection<?>, Dataset<?>> emptyDatasets) {
    this.emptyDatasets = emptyDatasets;
    this.session = session;
    this.streaming = streaming;
    this.policies = policies;
    this.metrics = metrics;
    this.options = options;
    this.consumers = consumers;
    this.sharedPasses = sharedPasses;
  }

  public SparkSession session() {
    return session;
  }

  /** Where executors report Beam metrics; {@code null} in the check pass. */
  public PipelineMetrics metrics() {
    return metrics;
  }

  /** The streaming run this translation is an epoch of; fails in batch. */
  public StreamingEpoch streaming() {
    if (streaming == null) {
      throw new IllegalStateException("Step '" + stepName() + "' is translated for streaming, but this run is batch");
    }
    return streaming;
  }

  /** The id of the streaming run this translation is an epoch of; null in batch. */
  public @Nullable String streamingRunId() {
    return streaming == null ? null : streaming.runId();
  }

  /** The partitions of a batch shuffle: the session's {@code spark.sql.shuffle.partitions}. */
  public int shufflePartitions() {
    return Integer.parseInt(session.conf().get("spark.sql.shuffle.partitions"));
  }

  public TimePolicies policies() {
    return policies;
  }

  public SerializablePipelineOptions options() {
    return options;
  }

  /** Makes {@code transform} the step being translated. */
  public void setCurrent(AppliedPTransform<?, ?, ?> transform) {
    this.current = transform;
    inputOverrides.clear();
  }

  public AppliedPTransform<?, ?, ?> current() {
    return current;
  }

  /**
   * The readers of {@code pc}, in plan order, when they run in one pass over it (batch: every
   * one a step that {@link TransformTranslator#sharesInputPass}); null when {@code pc} is read
   * otherwise. The first reader translated builds that pass ({@link #asStep} gives it the others'
   * view of the context) and keeps its outputs with {@link #putSharedPassOutputs}.
   */
  public @Nullable List<AppliedPTransform<?, ?, ?>> sharedPassReaders(PCollection<?> pc) {
    return sharedPasses.get(pc);
  }

  /** The persisted outputs of the one pass over {@code pc}; null before its first reader built them. */
  @SuppressWarnings("unchecked")
  public <T> @Nullable Dataset<T> sharedPassOutputs(PCollection<?> pc) {
    return (Dataset<T>) sharedPassOutputs.get(pc);
  }

  /** Keeps the outputs of the one pass over {@code pc}, persisted, for its other readers. */
  public <T> Dataset<T> putSharedPassOutputs(PCollection<?> pc, Dataset<T> outputs) {
    Dataset<T> p = persistShared(outputs);
    sharedPassOutputs.put(pc, p);
    return p;
  }

  /** The persisted outputs of the one pass over {@code pc}, an RDD; null before its first reader built them. */
  @SuppressWarnings("unchecked")
  public <T> @Nullable JavaRDD<T> sharedPassRdd(PCollection<?> pc) {
    return (JavaRDD<T>) sharedPassRdds.get(pc);
  }

  /** Keeps the outputs of the one pass over the RDD {@code pc}, persisted once in {@code coder}. */
  public <T> JavaRDD<T> putSharedPassRdd(PCollection<?> pc, JavaRDD<T> outputs, Coder<T> coder) {
    JavaRDD<T> p = persistOnce(outputs, coder);
    sharedPassRdds.put(pc, p);
    return p;
  }

  /**
   * {@code work} as if {@code step} were being translated (its name, inputs and outputs), then
   * back to the current step: for a step that builds what others need, as the first reader of a
   * shared pass builds every reader's DoFn.
   */
  public <T> T asStep(AppliedPTransform<?, ?, ?> step, java.util.function.Supplier<T> work) {
    AppliedPTransform<?, ?, ?> was = current;
    current = step;
    try {
      return work.get();
    } finally {
      current = was;
    }
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

  /** {@code pc}'s data as a Dataset, made from its RDD if it has one. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <T> Dataset<WindowedValue<T>> dataset(PCollection<T> pc) {
    JavaRDD<?> override = inputOverrides.get(pc);
    if (override != null) {
      return session.createDataset(((JavaRDD) override).rdd(), encoder(pc));
    }
    Dataset<?> ds = datasets.get(pc);
    if (ds == null && empty.contains(pc)) {
      ds = emptyDatasets.computeIfAbsent(pc, k -> session.emptyDataset(encoder(pc)));
    }
    if (ds == null && rdds.containsKey(pc)) {
      ds = fromRdds.computeIfAbsent(pc, k -> session.createDataset(((JavaRDD) rdds.get(k)).rdd(), encoder(pc)));
    }
    if (ds == null) {
      throw new IllegalStateException("PCollection " + pc + " has not been translated yet");
    }
    return (Dataset<WindowedValue<T>>) ds;
  }

  /**
   * {@code pc}'s elements as an RDD: its own, none if it is known empty, or its Dataset's rows
   * (which plans that Dataset).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <T> JavaRDD<WindowedValue<T>> rdd(PCollection<T> pc) {
    JavaRDD<?> rdd = inputOverrides.containsKey(pc) ? inputOverrides.get(pc) : rdds.get(pc);
    if (rdd != null) {
      return (JavaRDD<WindowedValue<T>>) rdd;
    }
    if (isEmpty(pc)) {
      return JavaSparkContext.fromSparkContext(session.sparkContext()).emptyRDD();
    }
    return dataset(pc).toJavaRDD();
  }

  /** Whether {@code pc}'s data is an RDD (or known empty): {@link #rdd} then costs no planning. */
  public boolean hasRdd(PCollection<?> pc) {
    return inputOverrides.containsKey(pc) || rdds.containsKey(pc) || isEmpty(pc);
  }

  /**
   * Makes the current step read {@code rdd} as {@code pc}, in place of {@code pc}'s data: for a
   * streaming step that first sets aside elements it cannot process yet.
   */
  public <T> void overrideInput(PCollection<T> pc, JavaRDD<WindowedValue<T>> rdd) {
    inputOverrides.put(pc, rdd);
  }

  /**
   * Registers the elements of {@code pc} as an RDD. When more than one transform reads it, it is
   * persisted once, Beam-encoded (a persisted block may be written to disk or read by another
   * executor, and Beam's values need not be Java-serializable), unless they read it in one pass
   * ({@link #sharedPassReaders}); {@code persisted}: {@code rdd} only decodes blocks that are
   * persisted already.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public <T> void putRdd(PCollection<T> pc, JavaRDD<WindowedValue<T>> rdd, boolean persisted) {
    int readers = consumers.getOrDefault(pc, 0);
    JavaRDD<WindowedValue<T>> named = rdd;
    if (readers > 1 && !persisted && !sharedPasses.containsKey(pc)) {
      named = persistOnce(rdd, (Coder) SideInputData.elementCoder(pc));
    }
    rdds.put(pc, named);
    if (readers == 0) {
      rddLeaves.put(stepName() + " [" + pc.getName() + "]", named);
    }
  }

  /**
   * {@code rdd} computed once for every consumer: persisted in {@link ElementChunk}s, which are
   * in {@code coder}'s bytes only where Spark serializes them, or as the elements' bytes, decoded
   * again for each reader, where the session's serializer would not write chunks through the
   * coder.
   */
  public <T> JavaRDD<T> persistOnce(JavaRDD<T> rdd, Coder<T> coder) {
    if (ElementChunk.usable(session.sparkContext().conf())) {
      JavaRDD<ElementChunk<T>> chunks =
          Rdds.mapPartitions(rdd, ElementChunk.chunks(coder), true).persist(StorageLevel.MEMORY_AND_DISK());
      persistedRdds.add(chunks);
      return Rdds.flatMap(chunks, ElementChunk.elements());
    }
    JavaRDD<byte[]> bytes = Rdds.map(rdd, new CoderFunctions.Encode<>(coder)).persist(StorageLevel.MEMORY_AND_DISK());
    persistedRdds.add(bytes);
    return Rdds.map(bytes, new CoderFunctions.Decode<>(coder));
  }

  /**
   * Registers the Dataset of {@code pc}; persists it when more than one transform reads it, unless
   * they read it in one pass ({@link #sharedPassReaders}).
   */
  public <T> void putDataset(PCollection<T> pc, Dataset<WindowedValue<T>> ds) {
    int readers = consumers.getOrDefault(pc, 0);
    Dataset<WindowedValue<T>> named = ds;
    if (readers > 1 && !sharedPasses.containsKey(pc)) {
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
    // No Dataset yet: building its encoder costs milliseconds (the first one, loading Catalyst,
    // far more), and in streaming most readers take the RDD (none, see #rdd).
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
   * Registers {@code of}'s data as {@code pc}'s too, without treating it as a leaf: for outputs
   * that stand for their input, like a view's.
   */
  public <T> void putAlias(PCollection<T> pc, PCollection<T> of) {
    if (rdds.containsKey(of)) {
      rdds.put(pc, rdds.get(of));
    } else if (!datasets.containsKey(of) && empty.contains(of)) {
      empty.add(pc);
    } else {
      datasets.put(pc, dataset(of));
    }
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
  public Map<String, Dataset<?>> leaves() {
    return leaves;
  }

  /** RDDs that no transform reads: evaluated with {@link #leaves}. */
  public Map<String, JavaRDD<?>> rddLeaves() {
    return rddLeaves;
  }

  /** Releases what this translation persisted and broadcast, once its jobs have run. */
  public void close() {
    for (Dataset<?> ds : persisted) {
      ds.unpersist(false);
    }
    for (JavaRDD<?> rdd : persistedRdds) {
      rdd.unpersist(false);
    }
    for (SideInputData data : sideInputs.values()) {
      data.destroy();
    }
  }
}
