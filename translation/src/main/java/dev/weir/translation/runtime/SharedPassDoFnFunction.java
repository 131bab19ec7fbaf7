package dev.weir.translation.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/**
 * Several stateless DoFns that read one PCollection, run in one pass over a partition of it: each
 * element goes to every DoFn in turn, as Flink's chained operators get a forwarded element, so
 * the input is computed once without being persisted. The outputs are {@link RawUnionValue}s
 * tagged by position in the DoFns' outputs taken in order (the first DoFn's, main output first,
 * then the next one's), which the translator persists and filters per output.
 *
 * <p>Each DoFn runs as its own bundle (its own instance, metrics and failure naming its step);
 * the elements go to them in chunks, so that each bundle's metrics scope is entered once per
 * chunk, not per element, and what waits in memory is one chunk and its outputs.
 */
public final class SharedPassDoFnFunction
    implements MapPartitionsFunction<WindowedValue<Object>, WindowedValue<Object>>,
        FlatMapFunction<Iterator<WindowedValue<Object>>, WindowedValue<Object>> {
  /** How many input elements go to one DoFn before the next one gets them. */
  private static final int CHUNK = 256;

  private final List<DoFnSpec> specs;

  public SharedPassDoFnFunction(List<DoFnSpec> specs) {
    this.specs = specs;
  }

  @Override
  public Iterator<WindowedValue<Object>> call(Iterator<WindowedValue<Object>> input) {
    List<DoFnFunction.Bundle> bundles = new ArrayList<>(specs.size());
    for (DoFnSpec spec : specs) {
      bundles.add(new DoFnFunction.Bundle(spec, null));
    }
    return new Iterator<>() {
      final ArrayDeque<WindowedValue<Object>> out = new ArrayDeque<>();
      final List<WindowedValue<Object>> chunk = new ArrayList<>(CHUNK);
      boolean ended;

      @Override
      public boolean hasNext() {
        while (out.isEmpty() && !ended) {
          chunk.clear();
          while (chunk.size() < CHUNK && input.hasNext()) {
            chunk.add(input.next());
          }
          if (chunk.isEmpty()) {
            ended = true;
          }
          int offset = 0;
          for (int i = 0; i < bundles.size(); i++) {
            DoFnFunction.Bundle bundle = bundles.get(i);
            if (ended) {
              bundle.end();
            } else {
              bundle.processAll(chunk);
            }
            drain(bundle, specs.get(i).outputTags.size() > 1, offset);
            offset += specs.get(i).outputTags.size();
          }
        }
        return !out.isEmpty();
      }

      /** Moves {@code bundle}'s outputs to {@link #out}, tagged from {@code offset}. */
      @SuppressWarnings({"unchecked", "rawtypes"})
      private void drain(DoFnBundle bundle, boolean tagged, int offset) {
        for (WindowedValue<Object> value = bundle.buffer.poll(); value != null; value = bundle.buffer.poll()) {
          if (tagged) {
            RawUnionValue union = (RawUnionValue) value.getValue();
            out.add((WindowedValue) value.withValue(new RawUnionValue(offset + union.getUnionTag(), union.getValue())));
          } else {
            out.add((WindowedValue) value.withValue(new RawUnionValue(offset, value.getValue())));
          }
        }
      }

      @Override
      public WindowedValue<Object> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return out.poll();
      }
    };
  }
}
