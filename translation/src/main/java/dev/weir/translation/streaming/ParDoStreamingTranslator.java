package dev.weir.translation.streaming;

import dev.weir.translation.Rdds;
import dev.weir.translation.CoderFunctions;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.batch.ParDoTranslator;
import dev.weir.translation.runtime.DoFnSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.HashSet;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * {@code ParDo} in streaming: a stateless DoFn runs on each epoch's elements as in batch. With
 * side inputs, an element is processed once every side input is complete for its window (the
 * side input's watermark has passed the end of the window it maps to), and reads everything the
 * side input received up to then. Until that, the element waits on the driver and holds the
 * step's output watermark at its timestamp. A stateful DoFn keeps each key's state and timers
 * across epochs ({@link StatefulParDoPartition}); its pending timers hold the output watermark.
 * With {@code @RequiresTimeSortedInput} runners-core's runner buffers each key's elements in state
 * and hands them to the DoFn in timestamp order once the input watermark passes them (a flush
 * timer, whose pending output timestamp holds the output watermark).
 */
public final class ParDoStreamingTranslator
    implements OperatorTranslator<ParDo.MultiOutput<?, ?>>, RunsWithLeaves<ParDo.MultiOutput<?, ?>> {
  private final ParDoTranslator batch = new ParDoTranslator();

  @Override
  public @Nullable String whyNot(ParDo.MultiOutput<?, ?> transform, TranslationContext context) {
    return batch.whyNot(transform, context);
  }

  /** A stateless DoFn without side inputs: one with side inputs may release elements set aside. */
  @Override
  public boolean emitsNothingFromNothing(ParDo.MultiOutput<?, ?> transform) {
    return transform.getSideInputs().isEmpty() && !DoFnSignatures.isStateful(transform.getFn());
  }

  /**
   * A stateless DoFn without side inputs, whose input need not be stable: its input may be read
   * within the job that runs it (a retried task reads its split again from the committed mark).
   */
  @Override
  public boolean derivesLazily(ParDo.MultiOutput<?, ?> transform) {
    return emitsNothingFromNothing(transform)
        && !DoFnSignatures.requiresTimeSortedInput(transform.getFn())
        && !DoFnSignatures.getSignature(transform.getFn().getClass()).processElement().requiresStableInput();
  }

  /**
   * A stateful DoFn without side inputs: its partitions may run within the epoch's leaves job. One
   * with side inputs first sets aside what waits for them, in a job of its own.
   */
  @Override
  public boolean canRunWithLeaves(ParDo.MultiOutput<?, ?> transform) {
    return DoFnSignatures.isStateful(transform.getFn()) && transform.getSideInputs().isEmpty();
  }

  /** Elements waiting for side inputs, Beam-encoded, one window each. */
  private static final class Waiting {
    final ArrayList<byte[]> elements = new ArrayList<>();

    private void write(java.io.DataOutputStream out) throws java.io.IOException {
      out.writeInt(elements.size());
      for (byte[] e : elements) {
        FieldsCoder.writeNullable(e, out);
      }
    }

    private static Waiting read(java.io.DataInputStream in) throws java.io.IOException {
      Waiting w = new Waiting();
      for (int i = in.readInt(); i > 0; i--) {
        w.elements.add(FieldsCoder.readNullableBytes(in));
      }
      return w;
    }
  }

  private static final StepProgress<Waiting> WAITING =
      StepProgress.of("waiting for side inputs", Waiting::write, Waiting::read, Waiting::new);

  @Override
  public StepOperator operator(ParDo.MultiOutput<?, ?> transform) {
    return new ParDoOperator(transform);
  }

  /**
   * A ParDo step over the run. Its DoFn's spec (the DoFn serialized, its schema and side-input
   * mapping read off Beam's pipeline proto) is built when it opens, and so are, for a stateful
   * DoFn, the coders of its keys, elements and outputs.
   */
  private final class ParDoOperator implements StepOperator {
    private final ParDo.MultiOutput<?, ?> transform;
    private final boolean stateful;
    /** A stateless DoFn with sorted input: batch's translation, over the epoch's elements. */
    private final boolean sortedByBatch;
    private @Nullable DoFnSpec spec;
    private @Nullable List<TupleTag<?>> tags;
    private @Nullable Coder<Object> keyCoder;
    private @Nullable Coder<WindowedValue<Object>> elementCoder;
    private @Nullable Coder<WindowedValue<Object>> outputCoder;

    ParDoOperator(ParDo.MultiOutput<?, ?> transform) {
      this.transform = transform;
      this.stateful = DoFnSignatures.isStateful(transform.getFn());
      this.sortedByBatch = !stateful && DoFnSignatures.requiresTimeSortedInput(transform.getFn());
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void open(TranslationContext context) {
      if (sortedByBatch) {
        return;
      }
      spec = ParDoTranslator.spec(transform, context, List.of());
      tags = ParDoTranslator.outputTags(transform.getMainOutputTag(), context);
      if (stateful) {
        PCollection<KV<Object, Object>> input = context.input();
        Coder<? extends BoundedWindow> windowCoder = TranslationContext.windowCoder(input);
        keyCoder = ((KvCoder<Object, Object>) input.getCoder()).getKeyCoder();
        elementCoder = (Coder) WindowedValues.getFullCoder(input.getCoder(), windowCoder);
        outputCoder = (Coder) WindowedValues.getFullCoder(ParDoTranslator.outputValueCoder(tags, context), windowCoder);
      }
    }

    @Override
    public void processEpoch(TranslationContext context) {
      StreamingRun run = StreamingRun.of(context);
      Instant hold = run.inputWatermark();
      if (!transform.getSideInputs().isEmpty()) {
        hold = min(hold, waitForSideInputs(transform.getSideInputs().values(), context));
      }
      if (stateful) {
        Instant held = runStateful(context);
        if (held == null) {
          // Run within the leaves job, which reports the watermark.
          return;
        }
        hold = min(hold, held);
      } else if (sortedByBatch) {
        // Sorted within the epoch, as batch sorts its whole input.
        batch.translate(transform, context);
      } else {
        ParDoTranslator.putRddOutputs(context, tags, ParDoTranslator.runStateless(context.rdd(context.input()), spec(context)), false);
      }
      run.reportOutputWatermark(hold);
    }

    /** The DoFn's spec with this epoch's side-input contents. */
    private DoFnSpec spec(TranslationContext context) {
      if (transform.getSideInputs().isEmpty()) {
        return spec;
      }
      return spec.withSideInputs(ParDoTranslator.sideInputs(context, transform.getSideInputs().values()));
    }

    /**
     * A stateful DoFn: the epoch's elements shuffled by key into the run's fixed partitions, and
     * {@link StatefulParDoPartition} run once per partition over the state kept there, in a job
     * of its own or, when only lazily derived steps follow, within the epoch's leaves job.
     * Returns the earliest hold (pending timers' output timestamps), or null when the leaves job
     * runs it: the step then reports its watermark once that job ran.
     */
    private @Nullable Instant runStateful(TranslationContext context) {
      StreamingRun run = StreamingRun.of(context);
      KeyedShuffle.LastRun last = KeyedShuffle.LastRun.of(run, context.stepName());
      if (transform.getSideInputs().isEmpty() && last.skipsEpoch(context)) {
        // No element and no timer due: running would change no key and emit nothing.
        return last.outputWatermark(run.inputWatermark());
      }
      StatefulParDoPartition.Spec plan = new StatefulParDoPartition.Spec();
      plan.run = KeyedEpoch.of(context, last.stateEpoch(run.epoch()));
      plan.dofn = spec(context);
      plan.keyCoder = keyCoder;
      plan.elementCoder = elementCoder;
      plan.outputCoder = outputCoder;
      plan.policies = context.policies();
      int partitions = run.keyedPartitions();
      JavaRDD<byte[]> out =
          KeyedShuffle.pinned(
              context,
              Rdds.mapPartitionsWithIndex(
                  KeyedShuffle.byKey(context.rdd(context.input()), keyCoder, elementCoder, true, partitions, plan.run.backend().groupsKeys()),
                  new StatefulParDoPartition(plan),
                  true));
      if (run.runsWithLeaves()) {
        KeyedShuffle.settleAfterLeaves(context, plan.run.holds(), partitions, last);
        ParDoTranslator.putRddOutputs(context, tags, Rdds.map(out, new CoderFunctions.Decode<>(outputCoder)), false);
        return null;
      }
      KeyedShuffle.runOnce(context, out, plan.run.holds(), partitions, last);
      Instant hold = last.outputWatermark(run.inputWatermark());
      if (last.emittedNothing(context)) {
        return hold;
      }
      ParDoTranslator.putRddOutputs(context, tags, Rdds.map(out, new CoderFunctions.Decode<>(outputCoder)), true);
      return hold;
    }
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /**
   * Sets aside the elements whose side inputs are not complete yet (with those set aside
   * before), and makes the step read the rest. Returns the earliest timestamp set aside.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Instant waitForSideInputs(java.util.Collection<PCollectionView<?>> sideInputs, TranslationContext context) {
    StreamingRun run = StreamingRun.of(context);
    PCollection<Object> input = context.input();
    Coder<WindowedValue<Object>> coder =
        (Coder) WindowedValues.getFullCoder(input.getCoder(), TranslationContext.windowCoder(input));
    Waiting waiting = run.progress(WAITING);
    JavaRDD<WindowedValue<Object>> in = context.rdd(input);
    if (!waiting.elements.isEmpty()) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(context.session().sparkContext());
      in = in.union(Rdds.map(jsc.parallelize(new ArrayList<>(waiting.elements), 1), new CoderFunctions.Decode<>(coder)));
      waiting.elements.clear();
    }
    List<WindowMappingFn<?>> mappings = new ArrayList<>();
    List<Long> watermarks = new ArrayList<>();
    List<Set<String>> fired = new ArrayList<>();
    List<Coder<BoundedWindow>> windowCoders = new ArrayList<>();
    boolean complete = true;
    for (PCollectionView<?> view : sideInputs) {
      PCollection<?> side = context.viewInput(view);
      Instant wm = run.watermarkOf(side);
      complete &= !wm.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE);
      mappings.add(view.getWindowMappingFn());
      watermarks.add(wm.getMillis());
      run.sideInputContents(context, view, side);
      fired.add(new HashSet<>(run.receivedSideInputWindows(view)));
      windowCoders.add((Coder) TranslationContext.windowCoder(side));
    }
    Instant hold = BoundedWindow.TIMESTAMP_MAX_VALUE;
    if (!complete) {
      // Read twice (what waits, what goes on): persisted for the epoch.
      JavaRDD<WindowedValue<Object>> exploded = context.persistOnce(Rdds.flatMap(in, new ExplodeWindows()), coder);
      SideInputsReady ready = new SideInputsReady(mappings, watermarks, fired, windowCoders);
      context.session().sparkContext().setJobDescription(context.stepName() + " (waiting for side inputs)");
      List<byte[]> notReady =
          Rdds.collect(Rdds.map(Rdds.filter(exploded, e -> !ready.call(e)), new CoderFunctions.Encode<>(coder)));
      for (byte[] b : notReady) {
        Instant t = decode(coder, b).getTimestamp();
        if (t.isBefore(hold)) {
          hold = t;
        }
      }
      waiting.elements.addAll(notReady);
      in = Rdds.filter(exploded, e -> ready.call(e));
    }
    context.overrideInput(input, in);
    return hold;
  }

  private static WindowedValue<Object> decode(Coder<WindowedValue<Object>> coder, byte[] b) {
    try {
      return CoderUtils.decodeFromByteArray(coder, b);
    } catch (Exception e) {
      throw new IllegalStateException("Could not decode an element waiting for side inputs", e);
    }
  }

  /**
   * Whether every side input is ready for the element's (one) window: complete (its watermark
   * passed the side-input window the element's maps to), or a pane of it arrived there.
   */
  static final class SideInputsReady implements FilterFunction<WindowedValue<Object>> {
    private final List<WindowMappingFn<?>> mappings;
    private final List<Long> watermarks;
    private final List<Set<String>> fired;
    private final List<Coder<BoundedWindow>> windowCoders;

    SideInputsReady(
        List<WindowMappingFn<?>> mappings, List<Long> watermarks, List<Set<String>> fired, List<Coder<BoundedWindow>> windowCoders) {
      this.mappings = mappings;
      this.watermarks = watermarks;
      this.fired = fired;
      this.windowCoders = windowCoders;
    }

    @Override
    public boolean call(WindowedValue<Object> element) {
      BoundedWindow window = element.getWindows().iterator().next();
      for (int i = 0; i < mappings.size(); i++) {
        BoundedWindow side = mappings.get(i).getSideInputWindow(window);
        if (watermarks.get(i) <= side.maxTimestamp().getMillis()
            && !(fired.get(i).size() > 0 && fired.get(i).contains(SideInputHistory.windowKey(windowCoders.get(i), side)))) {
          return false;
        }
      }
      return true;
    }
  }

  private static final class ExplodeWindows implements FlatMapFunction<WindowedValue<Object>, WindowedValue<Object>> {
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<WindowedValue<Object>> call(WindowedValue<Object> e) {
      return (Iterator) e.explodeWindows().iterator();
    }
  }
}
