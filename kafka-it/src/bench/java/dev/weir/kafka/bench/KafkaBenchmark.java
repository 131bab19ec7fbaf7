package dev.weir.kafka.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka benchmark, the same source for every runner (compiled against Beam 2.73 with WeirRunner
 * in {@code kafka-it}, against Beam 2.70 with FlinkRunner in {@code nexmark-peers}): a topic read
 * by {@code KafkaIO.read()} (create-time timestamps, no allowed delay), counted per key in 1 s
 * fixed windows. A benchmark, not a test: {@code ci/kafka-bench.sh} runs it.
 *
 * <ul>
 *   <li>{@code produce BOOTSTRAP TOPIC PARTITIONS RECORDS}: creates the topic and fills it
 *       (keys {@code k0..k999}), then ends each partition with a record an hour ahead, whose
 *       watermark closes every window of the data.
 *   <li>{@code throughput BOOTSTRAP TOPIC RECORDS [pipeline options]}: reads the filled topic from
 *       its start and prints records/s from {@code run()} until every record was counted in a
 *       fired window.
 *   <li>{@code latency BOOTSTRAP TOPIC PARTITIONS RATE SECONDS [pipeline options]}: creates the
 *       topic, starts the pipeline, waits for a probe window to come out, appends RATE records/s
 *       for SECONDS, and prints the p50 and p99
 *       of each record's latency: from its append (its create time) to the output of its window.
 * </ul>
 *
 * <p>The pipeline's sink and this driver share their figures through {@link System#getProperties()},
 * holding {@code java.util.concurrent} objects: runners may load the DoFns in a class loader of
 * their own (Flink's mini cluster does, child first), where a static field of this class would be
 * another one; classes of {@code java.*} are the same for every loader of the JVM.
 */
public final class KafkaBenchmark {
  private static final int KEYS = 1000;
  private static final String COUNTED = "weir.kafka.bench.counted";
  private static final String OUTPUTS = "weir.kafka.bench.outputs";
  private static final String PROBES = "weir.kafka.bench.probes";
  private static final String PROBE = "probe";
  private static final Duration MAX_WAIT = Duration.ofMinutes(20);

  private KafkaBenchmark() {}

  public static void main(String[] args) {
    try {
      benchmark(args);
    } catch (Exception | Error e) {
      // The runners' threads may outlive main: end the JVM, and with it the Maven call.
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void benchmark(String[] args) throws Exception {
    if (args.length < 1) {
      usage();
    }
    switch (args[0]) {
      case "produce" -> {
        requireArgs(args, 5);
        long start = System.nanoTime();
        createTopic(args[1], args[2], Integer.parseInt(args[3]));
        long n = Long.parseLong(args[4]);
        try (KafkaProducer<String, String> producer = producer(args[1])) {
          List<Future<RecordMetadata>> pending = new ArrayList<>();
          long now = System.currentTimeMillis();
          for (long i = 0; i < n; i++) {
            // Create times move with the clock, as for records appended over the fill's time.
            if (i % 10_000 == 0) {
              now = System.currentTimeMillis();
            }
            pending.add(producer.send(new ProducerRecord<>(args[2], null, now, "k" + (i % KEYS), "v" + i)));
            if (pending.size() >= 100_000) {
              awaitAll(pending);
            }
          }
          awaitAll(pending);
          endEachPartition(producer, args[2], Integer.parseInt(args[3]));
        }
        System.out.printf(Locale.ROOT, "PRODUCED %d records to %s in %d ms%n", n, args[2],
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      }
      case "throughput" -> {
        requireArgs(args, 4);
        long records = Long.parseLong(args[3]);
        AtomicLong counted = shared(COUNTED, new AtomicLong());
        shared(OUTPUTS, new ConcurrentHashMap<String, Long>());
        PipelineOptions options = PipelineOptionsFactory.fromArgs(Arrays.copyOfRange(args, 4, args.length)).create();
        Pipeline p = pipeline(options, args[1], args[2], "throughput-" + System.nanoTime());
        long start = System.nanoTime();
        Run running = runInBackground(p);
        awaitCounted(counted, records, running);
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        System.out.printf(Locale.ROOT, "THROUGHPUT %s records %d ms %d records/s %.0f%n",
            options.getRunner().getSimpleName(), records, millis, records * 1000.0 / millis);
        System.exit(0);
      }
      case "latency" -> {
        requireArgs(args, 6);
        int partitions = Integer.parseInt(args[3]);
        int rate = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        createTopic(args[1], args[2], partitions);
        AtomicLong counted = shared(COUNTED, new AtomicLong());
        ConcurrentHashMap<String, Long> outputs = shared(OUTPUTS, new ConcurrentHashMap<String, Long>());
        PipelineOptions options = PipelineOptionsFactory.fromArgs(Arrays.copyOfRange(args, 6, args.length)).create();
        Run running = runInBackground(pipeline(options, args[1], args[2], "latency-" + System.nanoTime()));
        // The pipeline's start (Spark's or Flink's, the readers' first polls) is not part of a
        // record's latency: the appends begin once a probe window has come out. Each partition
        // gets a probe an hour behind and one 2 s later, which closes the first one's window;
        // probes are counted apart from the data.
        AtomicLong probes = shared(PROBES, new AtomicLong());
        try (KafkaProducer<String, String> probe = producer(args[1])) {
          long past = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
          List<Future<RecordMetadata>> sent = new ArrayList<>();
          for (int partition = 0; partition < partitions; partition++) {
            sent.add(probe.send(new ProducerRecord<>(args[2], partition, past, PROBE, PROBE)));
            sent.add(probe.send(new ProducerRecord<>(args[2], partition, past + 2_000, PROBE, PROBE)));
          }
          awaitAll(sent);
        }
        // At least the first probes' window: KafkaIO may close the later one too (its watermark of
        // a caught-up partition follows the clock).
        while (probes.get() < partitions) {
          if (running.ended() != null) {
            throw new IllegalStateException(running.ended() + " before its first window");
          }
          TimeUnit.MILLISECONDS.sleep(5);
        }
        int n = rate * seconds;
        long[] createTimes = new long[n];
        try (KafkaProducer<String, String> producer = producer(args[1])) {
          long begin = System.nanoTime();
          List<Future<RecordMetadata>> pending = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            // Paced: record i goes out at begin + i / rate.
            long due = begin + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
              TimeUnit.NANOSECONDS.sleep(wait);
            }
            createTimes[i] = System.currentTimeMillis();
            pending.add(producer.send(new ProducerRecord<>(args[2], null, createTimes[i], "k" + (i % KEYS), "v" + i)));
            if (pending.size() >= 10_000) {
              awaitAll(pending);
            }
          }
          awaitAll(pending);
          endEachPartition(producer, args[2], partitions);
        }
        awaitCounted(counted, n, running);
        long[] latencies = new long[n];
        for (int i = 0; i < n; i++) {
          long windowStart = createTimes[i] - Math.floorMod(createTimes[i], 1000L);
          Long output = outputs.get("k" + (i % KEYS) + "@" + windowStart);
          if (output == null) {
            throw new IllegalStateException("no output for key k" + (i % KEYS) + " in the window at " + windowStart);
          }
          latencies[i] = output - createTimes[i];
        }
        Arrays.sort(latencies);
        System.out.printf(Locale.ROOT, "LATENCY %s records %d at %d/s p50 %d ms p99 %d ms max %d ms%n",
            options.getRunner().getSimpleName(), n, rate, latencies[n / 2], latencies[(int) (n * 0.99)], latencies[n - 1]);
        System.exit(0);
      }
      default -> usage();
    }
  }

  static Pipeline pipeline(PipelineOptions options, String bootstrap, String topic, String group) {
    Map<String, Object> consumer = new HashMap<>();
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Pipeline p = Pipeline.create(options);
    p.apply("Read", KafkaIO.<String, String>read()
            .withBootstrapServers(bootstrap)
            .withTopic(topic)
            .withKeyDeserializer(StringDeserializer.class)
            .withValueDeserializer(StringDeserializer.class)
            .withConsumerConfigUpdates(consumer)
            .withCreateTime(org.joda.time.Duration.ZERO)
            .withoutMetadata())
        .apply("1 s windows", Window.into(FixedWindows.of(org.joda.time.Duration.standardSeconds(1))))
        .apply("Count per key", Count.perKey())
        .apply("Note", ParDo.of(new Note()));
    return p;
  }

  /** The sink: each window's count, and when it came out. */
  static final class Note extends DoFn<KV<String, Long>, Void> {
    @ProcessElement
    public void process(@Element KV<String, Long> count, IntervalWindow window) {
      long now = System.currentTimeMillis();
      if (window.start().getMillis() > now + 60_000) {
        return; // the end records' window, an hour ahead: it fires only on a drain
      }
      if (count.getKey().equals(PROBE)) {
        KafkaBenchmark.<AtomicLong>shared(PROBES, null).addAndGet(count.getValue());
        return;
      }
      KafkaBenchmark.<ConcurrentHashMap<String, Long>>shared(OUTPUTS, null)
          .merge(count.getKey() + "@" + window.start().getMillis(), now, Math::max);
      KafkaBenchmark.<AtomicLong>shared(COUNTED, null).addAndGet(count.getValue());
    }
  }

  @SuppressWarnings("unchecked")
  static <T> T shared(String name, T initial) {
    Properties props = System.getProperties();
    synchronized (props) {
      Object value = props.get(name);
      if (value == null) {
        if (initial == null) {
          throw new IllegalStateException("the benchmark's driver did not set " + name);
        }
        props.put(name, initial);
        value = initial;
      }
      return (T) value;
    }
  }

  /** A pipeline run from its own thread, and how it ended if it did. */
  private static final class Run {
    final java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();
    final java.util.concurrent.atomic.AtomicReference<org.apache.beam.sdk.PipelineResult> result =
        new java.util.concurrent.atomic.AtomicReference<>();

    /** Why waiting on it is no use any more, or null while it runs. */
    String ended() {
      if (error.get() != null) {
        return "the pipeline failed: " + error.get();
      }
      org.apache.beam.sdk.PipelineResult r = result.get();
      if (r != null && r.getState().isTerminal()) {
        return "the pipeline ended " + r.getState();
      }
      return null;
    }
  }

  private static Run runInBackground(Pipeline p) {
    // Some runners' run() blocks for as long as a streaming pipeline runs (FlinkRunner's local
    // cluster), others return at once (WeirRunner): the driver measures from this thread and
    // ends the JVM when done.
    Run run = new Run();
    Thread t = new Thread(() -> {
      try {
        run.result.set(p.run());
      } catch (Throwable e) {
        run.error.set(e);
      }
    }, "pipeline");
    t.setDaemon(true);
    t.start();
    return run;
  }

  private static void awaitCounted(AtomicLong counted, long expected, Run run) throws InterruptedException {
    long deadline = System.nanoTime() + MAX_WAIT.toNanos();
    while (counted.get() < expected) {
      String ended = run.ended();
      if (ended != null) {
        throw new IllegalStateException(ended + " after counting " + counted.get() + " of " + expected + " records");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("counted " + counted.get() + " of " + expected + " records in " + MAX_WAIT);
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    if (counted.get() != expected) {
      throw new IllegalStateException("counted " + counted.get() + " records, but " + expected + " were appended");
    }
  }

  private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
    }
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
  }

  private static void endEachPartition(KafkaProducer<String, String> producer, String topic, int partitions)
      throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    long ahead = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1);
    List<Future<RecordMetadata>> pending = new ArrayList<>();
    for (int partition = 0; partition < partitions; partition++) {
      pending.add(producer.send(new ProducerRecord<>(topic, partition, ahead, "end", "end")));
    }
    awaitAll(pending);
  }

  private static void awaitAll(List<Future<RecordMetadata>> pending)
      throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    for (Future<RecordMetadata> f : pending) {
      f.get(2, TimeUnit.MINUTES);
    }
    pending.clear();
  }

  private static void requireArgs(String[] args, int n) {
    if (args.length < n) {
      usage();
    }
  }

  private static void usage() {
    System.err.println("usage: KafkaBenchmark produce BOOTSTRAP TOPIC PARTITIONS RECORDS\n"
        + "       KafkaBenchmark throughput BOOTSTRAP TOPIC RECORDS [pipeline options]\n"
        + "       KafkaBenchmark latency BOOTSTRAP TOPIC PARTITIONS RATE SECONDS [pipeline options]");
    System.exit(2);
  }
}
