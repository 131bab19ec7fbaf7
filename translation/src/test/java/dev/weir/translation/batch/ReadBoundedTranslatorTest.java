package dev.weir.translation.batch;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.weir.translation.TestSpark;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.values.PCollection;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.junit.jupiter.api.Test;

class ReadBoundedTranslatorTest implements java.io.Serializable {
  @Test
  void readsABoundedSourceSplitIntoSeveralPartitions() {
    Pipeline p = TestSpark.pipeline();
    PCollection<Long> numbers = p.apply("Numbers", GenerateSequence.from(0).to(10_000));
    PAssert.thatSingleton(numbers.apply(Sum.longsGlobally())).isEqualTo(49_995_000L);
    TestSpark.drainJobs();
    String plan = TestSpark.run(p).explain();
    assertThat(plan, containsString("-> ReadBoundedTranslator"));
    List<SparkListenerJobStart> jobs = TestSpark.drainJobs();
    int maxTasks = jobs.stream().flatMap(j -> scala.jdk.javaapi.CollectionConverters.asJava(j.stageInfos()).stream())
        .mapToInt(s -> s.numTasks()).max().orElse(0);
    assertThat("some stage reads the source in parallel", maxTasks >= 2);
  }

  @Test
  void impulseIsOneEmptyByteArray() {
    Pipeline p = TestSpark.pipeline();
    PCollection<byte[]> impulse = p.apply(Impulse.create());
    PAssert.that(impulse).satisfies(
        elements -> {
          int n = 0;
          for (byte[] b : elements) {
            assertThat("empty", b.length == 0);
            n++;
          }
          assertThat("exactly one", n == 1);
          return null;
        });
    TestSpark.run(p);
  }
}
