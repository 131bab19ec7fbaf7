package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A long streaming run: an endless source, windowed counts per key, for {@code -Dweir.soak.epochs}
 * epochs (default 1,000). The heap in use after a full GC must not grow from 30% of the run to its
 * end by more than 32 MB (Spark's UI store keeps the last 1,000 jobs and stages, so it fills during
 * the first few hundred epochs, and then stays). Minutes long, so it runs on demand only:
 * {@code mvn -pl runner test -Dtest=StreamingSoakTest -Dweir.soak=true}.
 */
@EnabledIfSystemProperty(named = "weir.soak", matches = "true")
class StreamingSoakTest {

  @Test
  void memoryStaysFlatOverManyEpochs() throws Exception {
    long epochs = Long.getLong("weir.soak.epochs", 1000);
    Pipeline p = Pipelines.create("--blockOnRun=false", "--epochMaxRecords=200", "--epochIdleWaitMillis=0");
    p.apply(GenerateSequence.from(0).withRate(2000, Duration.standardSeconds(1)))
        .apply(
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs()))
                .via(x -> KV.of(x % 100, x)))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(1))))
        .apply(Count.perKey());
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long baseline = -1;
    long used = -1;
    long step = Math.max(1, epochs / 10);
    long nextReport = step;
    while (result.epochs() < epochs) {
      assertThat(result.getState(), equalTo(PipelineResult.State.RUNNING));
      long epoch = result.epochs();
      if (epoch >= nextReport) {
        used = heapAfterGc(memory);
        if (epoch >= 3 * epochs / 10 && baseline < 0) {
          baseline = used;
        }
        System.out.printf("epoch %d: heap used after GC %.1f MB%n", epoch, used / 1e6);
        nextReport = (epoch / step + 1) * step;
      }
      Thread.sleep(20);
    }
    result.cancel();
    result.waitUntilFinish(Duration.standardSeconds(60));
    used = heapAfterGc(memory);
    System.out.printf("after %d epochs: heap used after GC %.1f MB (baseline %.1f MB)%n", epochs, used / 1e6, baseline / 1e6);
    assertThat(used - baseline, lessThan(32L << 20));
  }

  /** The least of three readings, each after a full GC: one reading can catch a burst in flight. */
  private static long heapAfterGc(MemoryMXBean memory) throws InterruptedException {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
