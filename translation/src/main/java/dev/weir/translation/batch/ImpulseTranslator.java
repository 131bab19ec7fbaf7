package dev.weir.translation.batch;

import dev.weir.translation.Rdds;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.List;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;

/** {@code Impulse}: one empty byte array in the global window, in one partition. */
public final class ImpulseTranslator implements TransformTranslator<Impulse> {
  @Override
  public void translate(Impulse transform, TranslationContext context) {
    PCollection<byte[]> out = context.output();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(context.session().sparkContext());
    // The element is made in the task: a WindowedValue is not Java-serializable.
    context.putRdd(out, Rdds.map(jsc.parallelize(List.of(0), 1), new EmptyBytes()), false);
  }

  private static final class EmptyBytes implements Function<Integer, WindowedValue<byte[]>> {
    @Override
    public WindowedValue<byte[]> call(Integer ignored) {
      return WindowedValues.valueInGlobalWindow(new byte[0]);
    }
  }
}
