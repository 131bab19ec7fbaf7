package dev.weir.translation.batch;

import dev.weir.translation.TestSpark;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.BigEndianIntegerCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.junit.jupiter.api.Test;

class FlattenTranslatorTest implements java.io.Serializable {
  @Test
  void flattensInputsWithDifferentCodersAndTheSameInputTwice() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> a = p.apply("A", Create.of(1, 2).withCoder(VarIntCoder.of()));
    PCollection<Integer> b = p.apply("B", Create.of(3).withCoder(BigEndianIntegerCoder.of()));
    PCollection<Integer> all = PCollectionList.of(a).and(b).and(a).apply(Flatten.pCollections());
    PAssert.that(all).containsInAnyOrder(1, 2, 3, 1, 2);
    TestSpark.run(p);
  }

  @Test
  void flattenOfNothingIsEmpty() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Integer> none = PCollectionList.<Integer>empty(p).apply(Flatten.pCollections());
    none.setCoder(VarIntCoder.of());
    PAssert.that(none).empty();
    TestSpark.run(p);
  }
}
