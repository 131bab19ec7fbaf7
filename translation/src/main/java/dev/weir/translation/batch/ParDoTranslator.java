package dev.weir.translation.batch;

import dev.weir.translation.runtime.DoFnFunction;
import dev.weir.translation.runtime.DoFnSpec;
import dev.weir.translation.runtime.SharedPassDoFnFunction;
import dev.weir.encoders.CoderEncoders;
import dev.weir.translation.Rdds;
import dev.weir.translation.SideInputData;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.runners.AppliedPTransform;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.transforms.join.UnionCoder;
import org.apache.beam.sdk.transforms.reflect.DoFnSignature;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.util.construction.ParDoTranslation;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.beam.sdk.coders.KvCoder;
import scala.Tuple3;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code ParDo.MultiOutput} in batch: one {@code mapPartitions} running the DoFn per partition.
 * Spark pipelines consecutive ParDos into one stage. A stateful DoFn (state, timers or
 * time-sorted input) first has its input shuffled by key, each key's elements together. With
 * several outputs the DoFn writes a tagged union once, persisted, and each output is a filter of
 * it.
 */
public final class ParDoTranslator implements TransformTranslator<ParDo.MultiOutput<?, ?>> {

  @Override
  public @Nullable String whyNot(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    DoFn<?, ?> fn = transform.getFn();
    DoFnSignature signature = DoFnSignatures.signatureForDoFn(fn);
    if (signature.processElement().isSplittable()) {
      return "its DoFn " + fn.getClass().getName() + " is splittable over unbounded input, which "
          + "needs streaming";
    }
    return context.policies().whyNot(fn);
  }

  /** A stateless, unsplittable DoFn without side inputs maps each element on its own. */
  @Override
  public boolean sharesInputPass(ParDo.MultiOutput<?, ?> transform) {
    DoFn<?, ?> fn = transform.getFn();
    DoFnSignature signature = DoFnSignatures.signatureForDoFn(fn);
    return transform.getSideInputs().isEmpty()
        && !signature.processElement().isSplittable()
        && !DoFnSignatures.isStateful(fn)
        && !DoFnSignatures.requiresTimeSortedInput(fn);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void translate(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    PCollection<Object> input = context.input();
    List<AppliedPTransform<?, ?, ?>> readers = context.sharedPassReaders(input);
    if (readers != null) {
      translateSharedPass(input, readers, context);
      return;
    }
    List<TupleTag<?>> tags = outputTags(transform.getMainOutputTag(), context);
    DoFnSpec spec = spec(transform, context);
    boolean stateful =
        DoFnSignatures.requiresTimeSortedInput(transform.getFn()) || DoFnSignatures.isStateful(transform.getFn());
    if (stateful) {
      putRddOutputs(context, tags, runStateful(spec, context), false);
      return;
    }
    if (context.hasRdd(input)) {
      // No Catalyst operator reads it: the DoFn runs on the RDD, planned by no query.
      putRddOutputs(context, tags, runStateless(context.rdd(input), spec), false);
      return;
    }
    Dataset<WindowedValue<Object>> in = context.dataset(input);
    putOutputs(context, tags, encoder -> in.mapPartitions(new DoFnFunction(spec), encoder));
  }

  /**
   * One of the DoFns that read {@code input} in one pass ({@link TranslationContext#sharedPassReaders}):
   * the first one translated runs them all over {@code input} into one persisted Dataset of their
   * outputs ({@link SharedPassDoFnFunction}); each takes its outputs from it by tag, its outputs
   * being tagged from the number of outputs of the readers before it.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void translateSharedPass(
      PCollection<Object> input, List<AppliedPTransform<?, ?, ?>> readers, TranslationContext context) {
    int offset = 0;
    for (AppliedPTransform<?, ?, ?> reader : readers) {
      if (reader.getFullName().equals(context.stepName())) {
        break;
      }
      offset += reader.getOutputs().size();
    }
    ParDo.MultiOutput<?, ?> transform = (ParDo.MultiOutput<?, ?>) context.current().getTransform();
    List<TupleTag<?>> tags = outputTags(transform.getMainOutputTag(), context);
    if (context.hasRdd(input)) {
      JavaRDD<WindowedValue<Object>> all = context.sharedPassRdd(input);
      if (all == null) {
        List<DoFnSpec> specs = new ArrayList<>();
        Coder<Object> union = sharedPassUnionCoder(input, readers, context, specs);
        all = context.putSharedPassRdd(
            input,
            Rdds.mapPartitions(context.rdd(input), new SharedPassDoFnFunction(specs), false),
            (Coder) WindowedValues.getFullCoder(union, (Coder) TranslationContext.windowCoder(input)));
      }
      putRddUnionOutputs(context, tags, all, offset);
      return;
    }
    Dataset<WindowedValue<Object>> all = context.sharedPassOutputs(input);
    if (all == null) {
      List<DoFnSpec> specs = new ArrayList<>();
      Coder<Object> union = sharedPassUnionCoder(input, readers, context, specs);
      Encoder<WindowedValue<Object>> encoder = CoderEncoders.windowed(union, TranslationContext.windowCoder(input));
      all = context.putSharedPassOutputs(
          input, context.dataset(input).mapPartitions(new SharedPassDoFnFunction(specs), encoder));
    }
    putUnionOutputs(context, tags, all, offset);
  }

  /**
   * Adds every reader's DoFn spec to {@code specs}, in order, and gives the coder of the union of
   * all their outputs.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Coder<Object> sharedPassUnionCoder(
      PCollection<Object> input, List<AppliedPTransform<?, ?, ?>> readers, TranslationContext context, List<DoFnSpec> specs) {
    List<Coder<?>> coders = new ArrayList<>();
    for (AppliedPTransform<?, ?, ?> reader : readers) {
      ParDo.MultiOutput<?, ?> parDo = (ParDo.MultiOutput<?, ?>) reader.getTransform();
      DoFnSpec spec = context.asStep(reader, () -> spec(parDo, context));
      specs.add(spec);
      for (TupleTag<?> tag : spec.outputTags) {
        coders.add(reader.getOutputs().get(tag).getCoder());
      }
    }
    return (Coder) UnionCoder.of(coders);
  }

  /**
   * Registers each of the current step's outputs ({@code tags}, main first) as the elements of
   * {@code union} tagged {@code offset} plus its position, unwrapped.
   */
  @SuppressWarnings("unchecked")
  private static void putUnionOutputs(
      TranslationContext context, List<TupleTag<?>> tags, Dataset<WindowedValue<Object>> union, int offset) {
    for (int i = 0; i < tags.size(); i++) {
      PCollection<Object> out = (PCollection<Object>) context.outputs().get(tags.get(i));
      context.putDataset(
          out, union.filter(new HasUnionTag(offset + i)).map(new UnwrapUnion(), TranslationContext.encoder(out)));
    }
  }

  /**
   * Registers the current step's outputs ({@code tags}, main first) as the RDD elements of
   * {@code union} tagged {@code offset} plus its position, unwrapped.
   */
  @SuppressWarnings("unchecked")
  private static void putRddUnionOutputs(
      TranslationContext context, List<TupleTag<?>> tags, JavaRDD<WindowedValue<Object>> union, int offset) {
    for (int i = 0; i < tags.size(); i++) {
      context.putRdd(
          (PCollection<Object>) context.outputs().get(tags.get(i)),
          Rdds.map(Rdds.filter(union, new IsUnionTag(offset + i)), new UnwrapUnion()),
          false);
    }
  }

  /**
   * Registers a DoFn step's outputs from what it {@code emitted}, as RDDs: the one output's
   * elements, or a union of every output's, tagged by index ({@link #outputValueCoder}), which
   * each output filters. {@code persisted}: {@code emitted} decodes blocks persisted already (a
   * streaming keyed step's result); otherwise a union is persisted, since every output reads it.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void putRddOutputs(
      TranslationContext context, List<TupleTag<?>> tags, JavaRDD<WindowedValue<Object>> emitted, boolean persisted) {
    Map<TupleTag<?>, PCollection<?>> outputs = context.outputs();
    if (tags.size() == 1) {
      context.putRdd((PCollection<Object>) outputs.get(tags.get(0)), emitted, persisted);
      return;
    }
    JavaRDD<WindowedValue<Object>> union = emitted;
    if (!persisted) {
      Coder<?> windowCoder = TranslationContext.windowCoder(outputs.get(tags.get(0)));
      union = context.persistOnce(emitted, (Coder) WindowedValues.getFullCoder(outputValueCoder(tags, context), (Coder) windowCoder));
    }
    putRddUnionOutputs(context, tags, union, 0);
  }

  /** The coder of what a DoFn with outputs {@code tags} emits: its one output's, or their union's. */
  public static Coder<?> outputValueCoder(List<TupleTag<?>> tags, TranslationContext context) {
    if (tags.size() == 1) {
      return context.outputs().get(tags.get(0)).getCoder();
    }
    List<Coder<?>> coders = new ArrayList<>();
    for (TupleTag<?> tag : tags) {
      coders.add(context.outputs().get(tag).getCoder());
    }
    return UnionCoder.of(coders);
  }

  /** A stateless DoFn over each partition of {@code in}. */
  public static JavaRDD<WindowedValue<Object>> runStateless(JavaRDD<WindowedValue<Object>> in, DoFnSpec spec) {
    return Rdds.mapPartitions(in, new DoFnFunction(spec), false);
  }

  /**
   * What executors need to run the current step's DoFn; collects its side inputs. In streaming,
   * executors keep the DoFn's instances across the run's epochs.
   */
  public static DoFnSpec spec(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    return spec(transform, context, sideInputs(context, transform.getSideInputs().values()));
  }

  /** {@link #spec(ParDo.MultiOutput, TranslationContext)} with the given side-input contents. */
  public static DoFnSpec spec(ParDo.MultiOutput<?, ?> transform, TranslationContext context, List<SideInputData> sideInputs) {
    PCollection<Object> input = context.input();
    return new DoFnSpec(
        context.stepName(),
        transform.getFn(),
        context.options(),
        input.getCoder(),
        outputCoders(context),
        outputTags(transform.getMainOutputTag(), context),
        input.getWindowingStrategy(),
        ParDoTranslation.getSchemaInformation(context.current()),
        ParDoTranslation.getSideInputMapping(context.current()),
        sideInputs,
        context.metrics(),
        context.streamingRunId());
  }

  /** The broadcast contents of {@code views}, collected on first use. */
  public static List<SideInputData> sideInputs(
      TranslationContext context, java.util.Collection<PCollectionView<?>> views) {
    List<SideInputData> data = new ArrayList<>();
    for (PCollectionView<?> view : views) {
      data.add(context.sideInput(view));
    }
    return data;
  }

  /** The output tags of the current step, its main output first. */
  public static List<TupleTag<?>> outputTags(TupleTag<?> mainOutputTag, TranslationContext context) {
    List<TupleTag<?>> tags = new ArrayList<>();
    tags.add(mainOutputTag);
    for (TupleTag<?> tag : context.outputs().keySet()) {
      if (!tag.equals(mainOutputTag)) {
        tags.add(tag);
      }
    }
    return tags;
  }

  public static Map<TupleTag<?>, Coder<?>> outputCoders(TranslationContext context) {
    Map<TupleTag<?>, Coder<?>> outputCoders = new HashMap<>();
    context.outputs().forEach((tag, pc) -> outputCoders.put(tag, pc.getCoder()));
    return outputCoders;
  }

  /**
   * Registers the outputs of a DoFn step. {@code run} makes the Dataset the DoFn writes, given
   * its encoder: the single output's, or, with several outputs, that of a tagged union which is
   * persisted once and filtered per output.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void putOutputs(
      TranslationContext context,
      List<TupleTag<?>> tags,
      java.util.function.Function<Encoder<WindowedValue<Object>>, Dataset<WindowedValue<Object>>> run) {
    Map<TupleTag<?>, PCollection<?>> outputs = context.outputs();
    if (tags.size() == 1) {
      PCollection<Object> out = (PCollection<Object>) outputs.get(tags.get(0));
      context.putDataset(out, run.apply(TranslationContext.encoder(out)));
      return;
    }
    List<Coder<?>> coders = new ArrayList<>();
    for (TupleTag<?> tag : tags) {
      coders.add(outputs.get(tag).getCoder());
    }
    PCollection<?> first = outputs.get(tags.get(0));
    Dataset<WindowedValue<Object>> union =
        context.persistShared(
            run.apply((Encoder) CoderEncoders.windowed(UnionCoder.of(coders), TranslationContext.windowCoder(first))));
    putUnionOutputs(context, tags, union, 0);
  }

  /**
   * A stateful DoFn needs each key's elements together, in the order they were produced:
   * {@link HashSortedShuffle}, then {@link StatefulDoFnFunction} over each partition (where Beam's
   * runner puts a key's elements in timestamp order for {@code @RequiresTimeSortedInput}).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static JavaRDD<WindowedValue<Object>> runStateful(DoFnSpec spec, TranslationContext context) {
    PCollection<Object> input = context.input();
    Coder<Object> keyCoder = ((KvCoder<Object, Object>) (Coder<?>) input.getCoder()).getKeyCoder();
    JavaRDD<Tuple3<Long, byte[], WindowedValue<Object>>> byKey =
        HashSortedShuffle.sorted(
            context.stepName(),
            context.rdd(input),
            new GroupByKeyTranslator.GroupingKey(keyCoder, null),
            (Coder) SideInputData.elementCoder(input),
            context.shufflePartitions());
    return Rdds.mapPartitions(byKey, new StatefulDoFnFunction(spec, context.policies()), false);
  }

  private static final class HasUnionTag implements FilterFunction<WindowedValue<Object>> {
    private final int tag;

    HasUnionTag(int tag) {
      this.tag = tag;
    }

    @Override
    public boolean call(WindowedValue<Object> value) {
      return ((RawUnionValue) value.getValue()).getUnionTag() == tag;
    }
  }

  /** {@link HasUnionTag} for an RDD's filter. */
  private static final class IsUnionTag implements org.apache.spark.api.java.function.Function<WindowedValue<Object>, Boolean> {
    private final int tag;

    IsUnionTag(int tag) {
      this.tag = tag;
    }

    @Override
    public Boolean call(WindowedValue<Object> value) {
      return ((RawUnionValue) value.getValue()).getUnionTag() == tag;
    }
  }

  /** A union element's value (of a Dataset or an RDD of a multi-output DoFn's union). */
  public static final class UnwrapUnion
      implements MapFunction<WindowedValue<Object>, WindowedValue<Object>>,
          org.apache.spark.api.java.function.Function<WindowedValue<Object>, WindowedValue<Object>> {
    @Override
    public WindowedValue<Object> call(WindowedValue<Object> value) {
      return value.withValue(((RawUnionValue) value.getValue()).getValue());
    }
  }
}
