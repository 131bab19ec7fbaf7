package dev.weir.cluster;

import dev.weir.runner.WeirPipelineOptions;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch pipeline of the executor-loss test: the longs 0..count-1, spread over Spark's
 * shuffle partitions by a {@code Reshuffle}, then a slow step (a pause per element, so that the
 * run lasts long enough to lose an executor in the middle) that counts every element it sees in
 * the Beam counter {@code cluster-it/elements}, then a {@code GroupByKey} by value mod {@link
 * #KEYS} and one line per key with its count and sum ({@code TextIO}, sharded). The slow step logs
 * each bundle it finishes (on the executor, so the test can tell from an executor's log that a
 * task of the slow step has finished there, its shuffle output on that executor's disk).
 *
 * <p>{@link #main} prints the counter, {@code COUNTER elements attempted=A committed=C}; arguments:
 * output prefix, value count, pause per element in ms, then pipeline options.
 */
public final class SlowSumsPipeline {
  static final int KEYS = 8;
  static final String NAMESPACE = "cluster-it";
  static final String COUNTER = "elements";
  /** What the slow step logs when it finishes a bundle. */
  static final String BUNDLE_DONE = "slow bundle done";
  /** What the slow step logs for its first element of a bundle. */
  static final String BUNDLE_STARTED = "slow bundle started";

  private SlowSumsPipeline() {}

  /** Counts and passes on each element after a pause. */
  static final class Slow extends DoFn<Long, Long> {
    private static final Logger LOG = LoggerFactory.getLogger(Slow.class);
    private final Counter elements = Metrics.counter(NAMESPACE, COUNTER);
    private final long pauseMillis;
    private transient long inBundle;

    Slow(long pauseMillis) {
      this.pauseMillis = pauseMillis;
    }

    @StartBundle
    public void start() {
      inBundle = 0;
    }

    @ProcessElement
    public void process(@Element Long v, OutputReceiver<Long> out) throws InterruptedException {
      if (inBundle++ == 0) {
        LOG.info("{} with {}", BUNDLE_STARTED, v);
      }
      // The work this step stands for; not a wait for anything.
      TimeUnit.MILLISECONDS.sleep(pauseMillis);
      elements.inc();
      out.output(v);
    }

    @FinishBundle
    public void finish() {
      LOG.info("{}: {} elements", BUNDLE_DONE, inBundle);
    }
  }

  static String line(int key, long count, long sum) {
    return "key " + key + " count " + count + " sum " + sum;
  }

  /** What the pipeline writes for the values 0..count-1, from its definition, sorted. */
  static List<String> expected(long count) {
    TreeMap<Integer, long[]> keys = new TreeMap<>();
    for (long v = 0; v < count; v++) {
      long[] c = keys.computeIfAbsent((int) (v % KEYS), k -> new long[2]);
      c[0]++;
      c[1] += v;
    }
    return keys.entrySet().stream().map(e -> line(e.getKey(), e.getValue()[0], e.getValue()[1])).sorted().toList();
  }

  static Pipeline build(WeirPipelineOptions options, String output, long count, long pauseMillis) {
    Pipeline p = Pipeline.create(options);
    p.apply("Values", GenerateSequence.from(0).to(count))
        .apply("Spread", Reshuffle.viaRandomKey())
        .apply("Slow", ParDo.of(new Slow(pauseMillis)))
        .apply("Key by value mod " + KEYS,
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                .via(v -> KV.of((int) (v % KEYS), v)))
        .apply("Group", GroupByKey.create())
        .apply("Count and sum",
            MapElements.into(TypeDescriptors.strings()).via((KV<Integer, Iterable<Long>> kv) -> {
              long n = 0;
              long sum = 0;
              for (long v : kv.getValue()) {
                n++;
                sum += v;
              }
              return line(kv.getKey(), n, sum);
            }))
        .apply("Write", TextIO.write().to(output));
    return p;
  }

  public static void main(String[] args) {
    WeirPipelineOptions options =
        PipelineOptionsFactory.fromArgs(Arrays.copyOfRange(args, 3, args.length)).as(WeirPipelineOptions.class);
    options.setRunner(dev.weir.runner.WeirRunner.class);
    PipelineResult result = build(options, args[0], Long.parseLong(args[1]), Long.parseLong(args[2])).run();
    PipelineResult.State state = result.waitUntilFinish();
    MetricResult<Long> counter = result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named(NAMESPACE, COUNTER)).build())
        .getCounters()
        .iterator()
        .next();
    System.out.println("COUNTER " + COUNTER + " attempted=" + counter.getAttempted() + " committed=" + counter.getCommitted());
    System.out.println("STATE " + state);
    System.exit(state == PipelineResult.State.DONE ? 0 : 1);
  }
}
