package dev.weir.cluster;

import dev.weir.runner.WeirPipelineOptions;
import dev.weir.runner.WeirPipelineResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * The streaming pipeline of the cluster's fault tests: the values 0..count-1 of an {@link
 * AckingQueueSource}, keyed by value mod {@link #KEYS}, in 60 s windows (value v at v seconds); a
 * stateful DoFn keeps each key's count and sum per window in state and emits them when an
 * event-time timer at the window's end fires; the lines go to text files, one per window
 * ({@code FileIO}, one shard). Keyed state, timers, source marks and a file sink: everything a
 * restart or a lost executor must bring back from {@code --checkpointDir}.
 *
 * <p>{@link #main} runs it until it finishes and prints {@code STATE <state> EPOCHS <n> MILLIS
 * <wall time> LINES <lines emitted>}; arguments: output directory ({@code -}: no files, the lines
 * are only counted, in the Beam counter {@code cluster-it/lines}), acknowledgement directory,
 * value count, then pipeline options.
 */
public final class WindowSumsPipeline {
  static final int KEYS = 5;
  static final long WINDOW_SECONDS = 60;

  private WindowSumsPipeline() {}

  /** Sums a key's values of a window in state, emitted once the window ends. */
  static final class SumAtWindowEnd extends DoFn<KV<Integer, Long>, String> {
    @StateId("count")
    private final StateSpec<ValueState<Long>> countSpec = StateSpecs.value(VarLongCoder.of());

    @StateId("sum")
    private final StateSpec<ValueState<Long>> sumSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId("end")
    private final TimerSpec endSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<Integer, Long> e,
        IntervalWindow window,
        @StateId("count") ValueState<Long> count,
        @StateId("sum") ValueState<Long> sum,
        @TimerId("end") Timer end) {
      count.write(orZero(count.read()) + 1);
      sum.write(orZero(sum.read()) + e.getValue());
      end.set(window.maxTimestamp());
    }

    @OnTimer("end")
    public void onEnd(
        @Key Integer key,
        IntervalWindow window,
        @StateId("count") ValueState<Long> count,
        @StateId("sum") ValueState<Long> sum,
        OutputReceiver<String> out) {
      out.output(line(window.start().getMillis() / 1000, key, orZero(count.read()), orZero(sum.read())));
    }

    private static long orZero(Long value) {
      return value == null ? 0 : value;
    }
  }

  static String line(long windowStartSeconds, int key, long count, long sum) {
    return "window " + windowStartSeconds + " key " + key + " count " + count + " sum " + sum;
  }

  /**
   * What the pipeline makes of the values 0..count-1, from its definition: per window start (in
   * seconds), the window's lines, sorted.
   */
  static TreeMap<Long, List<String>> expected(long count) {
    TreeMap<Long, TreeMap<Integer, long[]>> windows = new TreeMap<>();
    for (long v = 0; v < count; v++) {
      long[] countAndSum = windows
          .computeIfAbsent(v / WINDOW_SECONDS * WINDOW_SECONDS, w -> new TreeMap<>())
          .computeIfAbsent((int) (v % KEYS), k -> new long[2]);
      countAndSum[0]++;
      countAndSum[1] += v;
    }
    TreeMap<Long, List<String>> lines = new TreeMap<>();
    windows.forEach((start, keys) -> {
      List<String> window = new ArrayList<>();
      keys.forEach((key, c) -> window.add(line(start, key, c[0], c[1])));
      window.sort(null);
      lines.put(start, window);
    });
    return lines;
  }

  /** Counts the lines in {@code cluster-it/lines}: the sink of a run without files. */
  static final class CountLines extends DoFn<String, Void> {
    private final Counter lines = Metrics.counter("cluster-it", "lines");

    @ProcessElement
    public void process(@Element String line) {
      lines.inc();
    }
  }

  /** The pipeline; {@code output} null: the lines are counted, not written. */
  static Pipeline build(WeirPipelineOptions options, @Nullable Path output, Path ackDir, long count) {
    Pipeline p = Pipeline.create(options);
    PCollection<String> lines = p.apply("Queue", Read.from(new AckingQueueSource(ackDir.toString(), options.getCheckpointDir(), count)))
        .apply("Key by value mod " + KEYS,
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                .via(v -> KV.of((int) (v % KEYS), v)))
        .setCoder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()))
        .apply("60 s windows", Window.into(FixedWindows.of(Duration.standardSeconds(WINDOW_SECONDS))))
        .apply("Sum at window end", ParDo.of(new SumAtWindowEnd()));
    if (output == null) {
      lines.apply("Count lines", ParDo.of(new CountLines()));
    } else {
      lines.apply("Write", FileIO.<String>write().via(TextIO.sink()).to(output.toString()).withSuffix(".txt").withNumShards(1));
    }
    return p;
  }

  public static void main(String[] args) {
    Path output = args[0].equals("-") ? null : Path.of(args[0]);
    Path ackDir = Path.of(args[1]);
    long count = Long.parseLong(args[2]);
    WeirPipelineOptions options =
        PipelineOptionsFactory.fromArgs(Arrays.copyOfRange(args, 3, args.length)).as(WeirPipelineOptions.class);
    options.setRunner(dev.weir.runner.WeirRunner.class);
    options.setBlockOnRun(false);
    long start = System.nanoTime();
    WeirPipelineResult result = (WeirPipelineResult) build(options, output, ackDir, count).run();
    PipelineResult.State state = result.waitUntilFinish();
    long millis = (System.nanoTime() - start) / 1_000_000;
    long lines = 0;
    for (MetricResult<Long> c : result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named("cluster-it", "lines")).build())
        .getCounters()) {
      lines = c.getCommitted();
    }
    System.out.println("STATE " + state + " EPOCHS " + result.epochs() + " MILLIS " + millis + " LINES " + lines);
    System.exit(state == PipelineResult.State.DONE ? 0 : 1);
  }
}
