package dev.weir.runner;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.state.BagState;
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
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The pipeline of the crash test ({@link CrashRecoveryTest}), run in a JVM of its own so that the
 * test can kill it: longs 0..N-1 from a queue-like source ({@link QueueSource}: what a finalized
 * mark covers is gone), keyed by value mod 7, 60 s windows; a stateful
 * DoFn sums each key's values per window in state and emits the sum when an event-time timer at
 * the window's end fires; the sums go to text files, one shard per window.
 *
 * <p>Arguments: output directory, the source's acknowledgement directory, then pipeline options
 * (e.g. {@code --checkpointDir=...}).
 */
public final class CrashTestPipeline {
  static final long VALUES = 600;
  static final int KEYS = 7;

  private CrashTestPipeline() {}

  /** Sums a key's values of a window, emitted when the window ends. */
  static final class SumAtWindowEnd extends DoFn<KV<Integer, Long>, String> {
    @StateId("sum")
    private final StateSpec<ValueState<Long>> sumSpec = StateSpecs.value(VarLongCoder.of());

    @StateId("seen")
    private final StateSpec<BagState<Long>> seenSpec = StateSpecs.bag(VarLongCoder.of());

    @TimerId("end")
    private final TimerSpec endSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<Integer, Long> e,
        BoundedWindow window,
        @StateId("sum") ValueState<Long> sum,
        @StateId("seen") BagState<Long> seen,
        @TimerId("end") Timer end) {
      Long before = sum.read();
      sum.write((before == null ? 0 : before) + e.getValue());
      seen.add(e.getValue());
      end.set(window.maxTimestamp());
    }

    @OnTimer("end")
    public void onEnd(
        @Key Integer key,
        BoundedWindow window,
        @StateId("sum") ValueState<Long> sum,
        @StateId("seen") BagState<Long> seen,
        OutputReceiver<String> out) {
      long count = 0;
      for (Long ignored : seen.read()) {
        count++;
      }
      out.output("key " + key + " window " + window + " values " + count + " sum " + sum.read());
    }
  }

  static Pipeline build(String output, String ackDir, String... args) {
    Pipeline p = Pipelines.create(args);
    String checkpointDir = p.getOptions().as(WeirPipelineOptions.class).getCheckpointDir();
    p.apply(Read.from(new QueueSource(ackDir, checkpointDir, VALUES)))
        .apply(
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                .via(v -> KV.of((int) (v % KEYS), v)))
        .setCoder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()))
        .apply(Window.into(FixedWindows.of(Duration.standardSeconds(60))))
        .apply("Sum at window end", ParDo.of(new SumAtWindowEnd()))
        .apply(FileIO.<String>write().via(TextIO.sink()).to(output).withSuffix(".txt").withNumShards(1));
    return p;
  }

  public static void main(String[] args) {
    String[] options = java.util.Arrays.copyOfRange(args, 2, args.length);
    PipelineResult result = build(args[0], args[1], options).run();
    System.out.println("STATE " + result.waitUntilFinish());
  }
}
