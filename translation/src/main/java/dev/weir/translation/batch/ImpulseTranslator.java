package dev.weir.translation.batch;

import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import java.util.List;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;

/** {@code Impulse}: one empty byte array in the global window, in one partition. */
public final class ImpulseTranslator implements TransformTranslator<Impulse> {
  @Override
  public void translate(Impulse transform, TranslationContext context) {
    PCollection<byte[]> out = context.output();
    List<WindowedValue<byte[]>> impulse = List.of(WindowedValues.valueInGlobalWindow(new byte[0]));
    context.putDataset(out, context.session().createDataset(impulse, TranslationContext.encoder(out)));
  }
}
