package dev.weir.translation.runtime;

import dev.weir.translation.SideInputData;
import dev.weir.translation.metrics.PipelineMetrics;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFnSchemaInformation;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Everything an executor needs to run one ParDo step: the serialised DoFn (deserialised when a
 * bundle needs a new instance: {@link DoFnInstances}), its coders, output tags (main first),
 * windowing and side inputs.
 */
public final class DoFnSpec implements Serializable {
  public final String stepName;
  private final byte[] serializedFn;
  public final SerializablePipelineOptions options;
  public final Coder<Object> inputCoder;
  public final Map<TupleTag<?>, Coder<?>> outputCoders;
  public final List<TupleTag<?>> outputTags;
  public final WindowingStrategy<?, ?> windowingStrategy;
  public final DoFnSchemaInformation schemaInformation;
  public final Map<String, PCollectionView<?>> sideInputMapping;
  public final List<SideInputData> sideInputs;
  public final PipelineMetrics metrics;
  /**
   * The streaming run within which executors keep this step's DoFn instances between bundles
   * ({@link DoFnInstances}); null: each bundle sets up and tears down its own.
   */
  public final @Nullable String reusedWithin;

  public DoFnSpec(
      String stepName,
      DoFn<?, ?> fn,
      SerializablePipelineOptions options,
      Coder<Object> inputCoder,
      Map<TupleTag<?>, Coder<?>> outputCoders,
      List<TupleTag<?>> outputTags,
      WindowingStrategy<?, ?> windowingStrategy,
      DoFnSchemaInformation schemaInformation,
      Map<String, PCollectionView<?>> sideInputMapping,
      List<SideInputData> sideInputs,
      PipelineMetrics metrics,
      @Nullable String reusedWithin) {
    this.stepName = stepName;
    this.serializedFn = SerializableUtils.serializeToByteArray(fn);
    this.options = options;
    this.inputCoder = inputCoder;
    this.outputCoders = outputCoders;
    this.outputTags = outputTags;
    this.windowingStrategy = windowingStrategy;
    this.schemaInformation = schemaInformation;
    this.sideInputMapping = sideInputMapping;
    this.sideInputs = sideInputs;
    this.metrics = metrics;
    this.reusedWithin = reusedWithin;
  }

  /**
   * This spec with other side-input contents: a streaming step builds its spec once per run and
   * gives it each epoch's side inputs, without serializing its DoFn again.
   */
  public DoFnSpec withSideInputs(List<SideInputData> contents) {
    return new DoFnSpec(this, contents);
  }

  private DoFnSpec(DoFnSpec spec, List<SideInputData> sideInputs) {
    this.stepName = spec.stepName;
    this.serializedFn = spec.serializedFn;
    this.options = spec.options;
    this.inputCoder = spec.inputCoder;
    this.outputCoders = spec.outputCoders;
    this.outputTags = spec.outputTags;
    this.windowingStrategy = spec.windowingStrategy;
    this.schemaInformation = spec.schemaInformation;
    this.sideInputMapping = spec.sideInputMapping;
    this.sideInputs = sideInputs;
    this.metrics = spec.metrics;
    this.reusedWithin = spec.reusedWithin;
  }

  /** The main output's tag. */
  public TupleTag<?> mainOutputTag() {
    return outputTags.get(0);
  }

  @SuppressWarnings("unchecked")
  DoFn<Object, Object> newFn() {
    return (DoFn<Object, Object>) SerializableUtils.deserializeFromByteArray(serializedFn, stepName);
  }
}
