package dev.weir.kafka;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real Kafka broker for tests: one KRaft node, broker and controller, on 127.0.0.1, run by the
 * project's {@code ci/kafka-broker.sh} in a private directory. {@link #stop} and {@link #start}
 * again keep its address and its data, so a test can take the broker away while its clients keep
 * their bootstrap address; {@link #close} stops it for good (a shutdown hook does it if a test
 * never gets there). The first start on a machine copies the server jars with Maven into
 * {@code ~/.cache/weir}.
 */
public final class KafkaBroker implements AutoCloseable {
  /** Covers a cold cache: the script gives Maven 10 minutes and the broker one more. */
  private static final Duration START_TIMEOUT = Duration.ofMinutes(12);
  private static final Duration STOP_TIMEOUT = Duration.ofMinutes(1);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

  private final Path script;
  private final Path dir;
  private final String bootstrapServers;
  private final Thread shutdownHook;
  private boolean running = true;
  private boolean closed;

  private KafkaBroker(Path script, Path dir, String bootstrapServers) {
    this.script = script;
    this.dir = dir;
    this.bootstrapServers = bootstrapServers;
    this.shutdownHook = new Thread(this::stopQuietly, "kafka-broker-stop " + dir);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts a broker whose ports, configuration, data and log live in {@code dir}. */
  public static KafkaBroker start(Path dir) throws IOException, InterruptedException {
    Path script = repoRoot().resolve("ci/kafka-broker.sh");
    Path absolute = dir.toAbsolutePath();
    run(script, "start", absolute, START_TIMEOUT);
    return new KafkaBroker(script, absolute, readBootstrap(absolute));
  }

  /** {@code 127.0.0.1:PORT}, the same before and after a {@link #stop}/{@link #start}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Where the broker keeps its partitions, one directory per topic partition. */
  public Path logDir() {
    return dir.resolve("data");
  }

  /** Stops the broker (SIGTERM, SIGKILL after a grace period); its port and data stay. */
  public synchronized void stop() throws IOException, InterruptedException {
    run(script, "stop", dir, STOP_TIMEOUT);
    running = false;
  }

  /** Starts the stopped broker again on the same port, with the data it had. */
  public synchronized void start() throws IOException, InterruptedException {
    if (closed) {
      throw new IllegalStateException("closed: " + dir);
    }
    run(script, "start", dir, START_TIMEOUT);
    running = true;
    String again = readBootstrap(dir);
    if (!again.equals(bootstrapServers)) {
      throw new IllegalStateException("restarted on " + again + ", was " + bootstrapServers);
    }
  }

  /**
   * Creates a topic with one replica per partition and returns once the broker serves every
   * partition: a reader that lists partitions right away finds them all.
   */
  public void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(adminConfig())) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(seconds(), TimeUnit.SECONDS);
      long deadline = System.nanoTime() + CLIENT_TIMEOUT.toNanos();
      String last = "(not described yet)";
      while (System.nanoTime() < deadline) {
        try {
          TopicDescription d =
              admin.describeTopics(List.of(topic)).allTopicNames().get(seconds(), TimeUnit.SECONDS).get(topic);
          List<TopicPartitionInfo> ps = d.partitions();
          if (ps.size() == partitions && ps.stream().allMatch(p -> p.leader() != null)) {
            return;
          }
          last = d.toString();
        } catch (ExecutionException e) {
          last = e.getCause().toString(); // UnknownTopicOrPartition until the metadata arrives
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
      throw new TimeoutException("topic " + topic + " not served within " + CLIENT_TIMEOUT + ": " + last);
    }
  }

  public Set<String> topics() throws Exception {
    try (Admin admin = Admin.create(adminConfig())) {
      return admin.listTopics().names().get(seconds(), TimeUnit.SECONDS);
    }
  }

  /**
   * The offsets consumer group {@code groupId} committed, per partition (none for a partition it
   * never committed), as Kafka's {@code Admin} reads them.
   */
  public Map<TopicPartition, Long> committedOffsets(String groupId) throws Exception {
    try (Admin admin = Admin.create(adminConfig())) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get(seconds(), TimeUnit.SECONDS);
      Map<TopicPartition, Long> offsets = new HashMap<>();
      committed.forEach((partition, offset) -> {
        if (offset != null) {
          offsets.put(partition, offset.offset());
        }
      });
      return offsets;
    }
  }

  /** Sends the records with {@code acks=all} and returns once the broker acknowledged each. */
  public List<RecordMetadata> produce(List<ProducerRecord<String, String>> records) throws Exception {
    return produce(records, Map.of());
  }

  /** As {@link #produce(List)}, with producer settings (say {@code compression.type}) on top. */
  public List<RecordMetadata> produce(List<ProducerRecord<String, String>> records, Map<String, Object> overrides)
      throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
    config.putAll(overrides);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
      for (ProducerRecord<String, String> r : records) {
        sent.add(producer.send(r));
      }
      producer.flush();
      List<RecordMetadata> acked = new ArrayList<>(sent.size());
      for (Future<RecordMetadata> f : sent) {
        acked.add(f.get(seconds(), TimeUnit.SECONDS));
      }
      return acked;
    }
  }

  /**
   * The records of every partition of {@code topic}, read from the beginning without a consumer
   * group until at least {@code count} arrived (all of them, so a duplicate shows); fails if fewer
   * arrive within the client timeout.
   */
  public List<ConsumerRecord<String, String>> readFromStart(String topic, int count) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, CLIENT_TIMEOUT).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition()))
          .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<String, String>> read = new ArrayList<>();
      long deadline = System.nanoTime() + CLIENT_TIMEOUT.toNanos();
      while (read.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(read::add);
      }
      if (read.size() < count) {
        throw new TimeoutException("read " + read.size() + " of " + count + " records of " + topic
            + " within " + CLIENT_TIMEOUT);
      }
      return read;
    }
  }

  /** Stops the broker for good; idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook runs (or ran) anyway
    }
    if (!running) {
      return;
    }
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while stopping the broker in " + dir);
    }
  }

  private void stopQuietly() {
    try {
      run(script, "stop", dir, STOP_TIMEOUT);
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("kafka-broker: could not stop the broker in " + dir + ": " + e);
    }
  }

  private Map<String, Object> adminConfig() {
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
  }

  private static long seconds() {
    return CLIENT_TIMEOUT.toSeconds();
  }

  private static String readBootstrap(Path dir) throws IOException {
    for (String line : Files.readAllLines(dir.resolve("kafka.env"), StandardCharsets.UTF_8)) {
      if (line.startsWith("WEIR_KAFKA_BOOTSTRAP=")) {
        return line.substring(line.indexOf('=') + 1);
      }
    }
    throw new IllegalStateException("no WEIR_KAFKA_BOOTSTRAP in " + dir.resolve("kafka.env"));
  }

  private static Path repoRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("ci/kafka-broker.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("ci/kafka-broker.sh not found above " + Path.of("").toAbsolutePath());
  }

  /**
   * Runs the script with its output in a file, so that the timeout holds even if a child kept a
   * pipe open; on timeout the script and its children (a half-started broker) are killed.
   */
  private static void run(Path script, String command, Path dir, Duration timeout)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path out = dir.resolve("kafka-broker-" + command + ".out");
    ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), command, dir.toString())
        .redirectErrorStream(true)
        .redirectOutput(out.toFile());
    // The broker runs on this JVM's Java (17, as the build requires), whatever else is installed.
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = pb.start();
    if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new IllegalStateException(script + " " + command + " did not end in " + timeout + ":\n" + tail(out));
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(script + " " + command + " " + dir + " failed:\n" + tail(out));
    }
  }

  private static String tail(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
  }
}
