package dev.weir.kafka;

import dev.weir.runner.WeirPipelineOptions;
import dev.weir.runner.WeirPipelineResult;
import dev.weir.runner.WeirRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * The pipeline of the Kafka end-to-end tests: a topic read by {@code KafkaIO.read()} (offsets
 * committed to a consumer group in {@code finalizeCheckpoint}, timestamps the producers' create
 * times), the records of each key counted in 1 s fixed windows, one line per key and window
 * ({@code window <start> key <key> count <n>}), written by {@code FileIO} with one shard: one
 * file per window. No {@code --experiments=use_deprecated_read}: on WeirRunner KafkaIO takes its
 * {@code UnboundedSource} anyway.
 *
 * <p>In-process, {@link #start} runs it; {@link #main} runs it in a JVM of its own (which a test
 * can {@code kill -9}) until a stop file appears, then drains it: arguments bootstrap servers,
 * topic, group id, output directory, stop file, then pipeline options.
 */
public final class KafkaCountsPipeline {
  static final String READ_STEP = "Read from Kafka";
  static final long WINDOW_MILLIS = 1_000;
  /** How far a record's create time may lie behind the partition's latest (KafkaIO's maxDelay). */
  static final long MAX_DELAY_MILLIS = 2_000;
  static final String RECORDS_COUNTER = "records";

  private KafkaCountsPipeline() {}

  /** The read, with the consumer settings the tests share and {@code extraConfig} on top. */
  static KafkaIO.Read<String, String> read(
      String bootstrapServers, String topic, String groupId, Map<String, Object> extraConfig) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.putAll(extraConfig);
    return KafkaIO.<String, String>read()
        .withBootstrapServers(bootstrapServers)
        .withTopic(topic)
        .withKeyDeserializer(StringDeserializer.class)
        .withValueDeserializer(StringDeserializer.class)
        .withConsumerConfigUpdates(config)
        .withCreateTime(Duration.millis(MAX_DELAY_MILLIS))
        .commitOffsetsInFinalize();
  }

  static Pipeline build(WeirPipelineOptions options, String bootstrapServers, String topic, String groupId, Path output) {
    Pipeline p = Pipeline.create(options);
    p.apply(READ_STEP, read(bootstrapServers, topic, groupId, Map.of()).withoutMetadata())
        .apply("Count records", ParDo.of(new CountRecords()))
        .apply("1 s windows", Window.into(FixedWindows.of(Duration.millis(WINDOW_MILLIS))))
        .apply("Count per key", Count.perKey())
        .apply("Format", ParDo.of(new Format()))
        .apply("Write", FileIO.<String>write().via(TextIO.sink()).to(output.toString()).withSuffix(".txt").withNumShards(1));
    return p;
  }

  /** Counts what the read gave ({@link #RECORDS_COUNTER}), so that a test can wait for it. */
  static final class CountRecords extends DoFn<KV<String, String>, KV<String, String>> {
    private final Counter records = Metrics.counter(KafkaCountsPipeline.class, RECORDS_COUNTER);

    @ProcessElement
    public void process(@Element KV<String, String> record, OutputReceiver<KV<String, String>> out) {
      records.inc();
      out.output(record);
    }
  }

  static final class Format extends DoFn<KV<String, Long>, String> {
    @ProcessElement
    public void process(@Element KV<String, Long> count, IntervalWindow window, OutputReceiver<String> out) {
      out.output("window " + window.start() + " key " + count.getKey() + " count " + count.getValue());
    }
  }

  static WeirPipelineOptions options(String... args) {
    WeirPipelineOptions options = PipelineOptionsFactory.fromArgs(args).as(WeirPipelineOptions.class);
    options.setRunner(WeirRunner.class);
    options.setBlockOnRun(false);
    if (Arrays.stream(args).noneMatch(a -> a.startsWith("--sparkMaster="))) {
      options.setSparkMaster("local[2]");
    }
    return options;
  }

  /** Starts the pipeline in this JVM; the caller owns the run and closes it. */
  static Running start(String bootstrapServers, String topic, String groupId, Path output, String... args) {
    return new Running((WeirPipelineResult) build(options(args), bootstrapServers, topic, groupId, output).run());
  }

  /** A run in this JVM: closing it cancels the run if it is still going. */
  record Running(WeirPipelineResult result) implements AutoCloseable {
    /** Why a test waiting on the run should stop waiting: it ended; null while it runs. */
    @Nullable
    String failure() {
      PipelineResult.State state = result.getState();
      if (state == PipelineResult.State.RUNNING) {
        return null;
      }
      try {
        return "the pipeline ended " + result.waitUntilFinish(Duration.ZERO);
      } catch (RuntimeException e) {
        return "the pipeline ended " + state + ": " + e;
      }
    }

    /** How many records the pipeline has read so far ({@link #RECORDS_COUNTER}). */
    long recordsRead() {
      long n = 0;
      for (MetricResult<Long> c : result.metrics()
          .queryMetrics(MetricsFilter.builder()
              .addNameFilter(MetricNameFilter.named(KafkaCountsPipeline.class, RECORDS_COUNTER))
              .build())
          .getCounters()) {
        n += c.getAttempted();
      }
      return n;
    }

    /**
     * Waits until the pipeline has read {@code count} records: a drain stops the reads, so a test
     * drains only once everything it sent was read.
     */
    void awaitRead(long count, java.time.Duration timeout) throws InterruptedException {
      Poll.until(count + " records read (" + recordsRead() + " so far)", timeout, () -> recordsRead() >= count, this::failure);
    }

    @Override
    public void close() {
      if (result.getState() == PipelineResult.State.RUNNING) {
        result.cancel();
        result.waitUntilFinish(Duration.standardMinutes(1));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path stopFile = Path.of(args[4]);
    WeirPipelineOptions options = options(Arrays.copyOfRange(args, 5, args.length));
    WeirPipelineResult result =
        (WeirPipelineResult) build(options, args[0], args[1], args[2], Path.of(args[3])).run();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
    PipelineResult.State state = PipelineResult.State.RUNNING;
    while (state == PipelineResult.State.RUNNING && !Files.exists(stopFile) && System.nanoTime() < deadline) {
      state = result.waitUntilFinish(Duration.millis(100));
    }
    if (state == PipelineResult.State.RUNNING && !Files.exists(stopFile)) {
      System.out.println("No stop file " + stopFile + " within 10 minutes: cancelled");
      result.cancel();
      System.exit(2);
    }
    if (state == PipelineResult.State.RUNNING) {
      System.out.println("Stop file found: draining");
      result.drain();
      state = result.waitUntilFinish(Duration.standardMinutes(3));
    }
    System.out.println("STATE " + state);
    System.exit(state == PipelineResult.State.DONE ? 0 : 1);
  }
}
