package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import dev.weir.translation.streaming.state.StateFiles;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Time per epoch of a stateful DoFn against the number of keys it holds and the number each epoch
 * touches. Epoch 1 gives every key state and a pending event-time timer (a bounded input read
 * whole); then 200 epochs each touch a few keys (an unbounded input). With the per-partition timer
 * and hold index an epoch's time follows the keys it touches, not all keys. Prints a table and
 * asserts that property: the median epoch does not grow with the keys held (within {@link
 * #MAX_GROWTH}). Minutes long and, with the heap backend, several GB of heap, so on demand only:
 * {@code mvn -pl runner test -Dtest=StateScaleTest -Dweir.scale=true -Dweir.test.heap=12g}; with
 * {@code -Dweir.scale.backends=memory,rocksdb} each case runs with each backend (RocksDB's runs fit
 * a heap of 2 GB: {@code -Dweir.test.heap=2g -Dweir.scale.backends=rocksdb
 * -Dweir.scale.cases=1000000:10000,10000000:10000 -Dweir.scale.checkpoints=true}).
 */
@EnabledIfSystemProperty(named = "weir.scale", matches = "true")
class StateScaleTest {
  private static final int EPOCHS = 200;

  /** Counts per key and keeps a timer pending far in the future. */
  static final class CountWithTimer extends DoFn<KV<Long, Long>, Long> {
    @StateId("count")
    private final StateSpec<ValueState<Long>> countSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId("later")
    private final TimerSpec laterSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(@StateId("count") ValueState<Long> count, @TimerId("later") Timer later) {
      Long c = count.read();
      count.write(c == null ? 1 : c + 1);
      later.set(new Instant(10_000_000_000_000L));
    }

    @OnTimer("later")
    public void onLater(@StateId("count") ValueState<Long> count, OutputReceiver<Long> out) {
      out.output(count.read());
    }
  }

  /**
   * Cases as {@code keys:touched}, comma-separated ({@code -Dweir.scale.cases}); with {@code
   * -Dweir.scale.checkpoints=true} each case runs twice, without and with a checkpoint dir.
   */
  @Test
  void timePerEpochFollowsTheKeysTouched() throws Exception {
    String cases = System.getProperty("weir.scale.cases", "10000:1000,1000000:1000,1000000:10000");
    boolean checkpoints = Boolean.getBoolean("weir.scale.checkpoints");
    List<String> backends = List.of(System.getProperty("weir.scale.backends", "memory").split(","));
    List<Result> results = new ArrayList<>();
    for (String c : cases.split(",")) {
      long keys = Long.parseLong(c.split(":")[0]);
      long touched = Long.parseLong(c.split(":")[1]);
      for (String backend : backends) {
        if (!checkpoints) {
          results.add(run(keys, touched, backend, null));
        } else {
          java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("weir-scale-checkpoints");
          results.add(run(keys, touched, backend, dir.toString()));
        }
        System.out.println(results.get(results.size() - 1).row());
      }
    }
    System.out.println(
        "| keys held | keys touched per epoch | backend | checkpoint dir | epoch 1 (all keys created) ms | median epoch ms"
            + " | mean epoch ms | checkpoint bytes per epoch (after epoch 10) | checkpoint dir at the end, bytes"
            + " | heap in use at the end, after a GC, MB |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    results.forEach(r -> System.out.println(r.row()));
    // The property in the name: among runs that touch as many keys per epoch (and agree on the
    // checkpoint dir), the median epoch of the one holding the most keys is within a generous
    // factor of the one holding the fewest. The factor leaves room for a shared, noisy machine;
    // an epoch that walked every key would be ~100 times slower at 100 times the keys.
    for (Result small : results) {
      for (Result large : results) {
        if (large.touched == small.touched
            && large.checkpoints == small.checkpoints
            && large.backend.equals(small.backend)
            && large.keys > small.keys) {
          assertThat(
              "median epoch ms holding " + large.keys + " keys against " + small.keys + " (" + small.touched + " touched)",
              large.medianMs,
              lessThanOrEqualTo(MAX_GROWTH * small.medianMs));
        }
      }
    }
  }

  /** How much slower the median epoch may be when holding more keys, touching as many. */
  private static final double MAX_GROWTH = 3.0;

  private record Result(
      long keys,
      long touched,
      String backend,
      boolean checkpoints,
      double firstMs,
      double medianMs,
      double meanMs,
      long checkpointBytesPerEpoch,
      long checkpointDirBytes,
      long heapUsedMb) {
    String row() {
      return String.format(
          "| %,d | %,d | %s | %s | %.0f | %.1f | %.1f | %,d | %,d | %,d |",
          keys, touched, backend, checkpoints ? "yes" : "no", firstMs, medianMs, meanMs, checkpointBytesPerEpoch,
          checkpointDirBytes, heapUsedMb);
    }
  }

  private static Result run(long keys, long touched, String backend, String checkpointDir) throws Exception {
    List<String> args =
        new ArrayList<>(List.of(
            "--blockOnRun=false", "--epochMaxRecords=" + touched / 2, "--epochIdleWaitMillis=0", "--runtimeMode=STREAMING",
            "--stateBackend=" + backend));
    if (checkpointDir != null) {
      args.add("--checkpointDir=" + checkpointDir);
    }
    Pipeline p = Pipelines.create(args.toArray(new String[0]));
    PCollection<KV<Long, Long>> all =
        p.apply("All keys", GenerateSequence.from(0).to(keys))
            .apply("Key all", MapElements.into(TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs())).via(v -> KV.of(v, v)));
    PCollection<KV<Long, Long>> some =
        p.apply("Some keys", Read.from(new FiniteUnboundedSource(0, (EPOCHS + 5) * touched, 1)))
            .apply(
                "Key some",
                MapElements.into(TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs()))
                    .via(v -> KV.of(Math.floorMod(v * 2654435761L, keys), v)));
    PCollectionList.of(all)
        .and(some)
        .apply(Flatten.pCollections())
        .setCoder(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()))
        .apply(ParDo.of(new CountWithTimer()));
    WeirPipelineResult result = (WeirPipelineResult) p.run();
    long[] ended = new long[EPOCHS + 2];
    long started = System.nanoTime();
    long seen = 0;
    long bytesAtEpoch10 = 0;
    while (seen < EPOCHS + 1) {
      long e = result.epochs();
      if (e > seen) {
        long now = System.nanoTime();
        for (long i = seen + 1; i <= Math.min(e, EPOCHS + 1); i++) {
          ended[(int) i] = now;
        }
        if (seen < 10 && e >= 10) {
          bytesAtEpoch10 = StateFiles.bytesWritten();
        }
        seen = e;
      }
      assertThat(result.getState(), equalTo(PipelineResult.State.RUNNING));
      Thread.sleep(1);
    }
    long checkpointBytesPerEpoch = (StateFiles.bytesWritten() - bytesAtEpoch10) / (seen - 10);
    // What the held state takes of the heap while the pipeline still runs (the run's end drops it).
    System.gc();
    long heapUsedMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
    result.cancel();
    result.waitUntilFinish();
    // The whole state as the checkpoint dir holds it (the retained commits), beside what one
    // epoch uploads: the upload should follow the keys touched, not this.
    long checkpointDirBytes = checkpointDir == null ? 0 : directoryBytes(java.nio.file.Path.of(checkpointDir));
    List<Double> times = new ArrayList<>();
    for (int i = 11; i <= EPOCHS + 1; i++) {
      times.add((ended[i] - ended[i - 1]) / 1e6);
    }
    Collections.sort(times);
    double mean = times.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    return new Result(
        keys, touched, backend, checkpointDir != null, (ended[1] - started) / 1e6, times.get(times.size() / 2), mean,
        checkpointBytesPerEpoch, checkpointDirBytes, heapUsedMb);
  }

  private static long directoryBytes(java.nio.file.Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
      return files.filter(java.nio.file.Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }
}
