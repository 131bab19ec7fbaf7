package dev.weir.translation.streaming;

import java.util.function.Supplier;
import org.apache.beam.sdk.coders.Coder;

/**
 * One kind of thing a streaming step keeps on the driver between epochs (a source's splits, the
 * elements waiting for side inputs, what a keyed step held after its last epoch): its name within
 * the step, the Beam coder it is committed with ({@link EpochCommit}), and what it is before the
 * step's first epoch. Each kind is one constant, next to the translator that keeps it.
 *
 * @param name unique among the kinds one step keeps
 */
public record StepProgress<T>(String name, Coder<T> coder, Supplier<T> initial) {
  /** A kind committed field by field ({@link FieldsCoder}). */
  static <T> StepProgress<T> of(String name, FieldsCoder.Writer<T> writer, FieldsCoder.Reader<T> reader, Supplier<T> initial) {
    return new StepProgress<>(name, FieldsCoder.of(writer, reader), initial);
  }

  /** Where this kind of {@code step} is kept in the run and its commits. */
  String key(String step) {
    return step + " [" + name + "]";
  }
}
