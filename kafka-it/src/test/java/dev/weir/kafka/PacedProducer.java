package dev.weir.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Appends numbered records to some partitions of a topic at a steady pace, from a thread of its
 * own, while a pipeline reads them: record {@code i} goes to partition {@code i mod n} of the
 * given ones, with key {@code k<i mod KEYS>} and an explicit create time, the wall clock when it
 * is sent (never earlier than the record before, so each partition's times only grow). It keeps
 * every record the broker acknowledged ({@code acks=all}): what a test expects comes from that
 * list. Owner: the test, which closes it (the thread is stopped and joined, the producer closed,
 * each with a timeout).
 */
final class PacedProducer implements AutoCloseable {
  static final int KEYS = 5;
  /** The key of the last record of each partition, whose time lies far ahead (see {@link #endEachPartition}). */
  static final String END_KEY = "end";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** A record the broker acknowledged. */
  record Sent(int partition, long offset, long timestamp, String key, String value) {}

  private final String topic;
  private final List<Integer> partitions;
  private final KafkaProducer<String, String> producer;
  private final List<Sent> acknowledged = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicLong lastTimestamp = new AtomicLong(Long.MIN_VALUE);
  private Thread thread;
  private volatile boolean stopped;
  private long unacknowledged;

  /** Connects (fetches the topic's metadata) before any record gets its time. */
  PacedProducer(String bootstrapServers, String topic, List<Integer> partitions) {
    this.topic = topic;
    this.partitions = List.copyOf(partitions);
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    this.producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    producer.partitionsFor(topic);
  }

  /** Starts sending records {@code first .. first+count-1}, {@code perSecond} a second. */
  synchronized void start(int first, int count, int perSecond) {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    thread = new Thread(() -> sendPaced(first, count, perSecond), "paced-producer " + topic);
    thread.setDaemon(true);
    thread.start();
  }

  private void sendPaced(int first, int count, int perSecond) {
    long start = System.nanoTime();
    try {
      for (int sent = 0; sent < count && !stopped; ) {
        long due = Math.min(count, (System.nanoTime() - start) / 1_000_000L * perSecond / 1000 + 1);
        for (; sent < due; sent++) {
          int i = first + sent;
          send(partitions.get(i % partitions.size()), nextTimestamp(System.currentTimeMillis()), "k" + (i % KEYS), "v" + i);
        }
        TimeUnit.MILLISECONDS.sleep(5); // the pace, not a wait for something
      }
      producer.flush();
    } catch (Throwable t) {
      failure.compareAndSet(null, t);
    }
  }

  private long nextTimestamp(long wanted) {
    return lastTimestamp.accumulateAndGet(wanted, Math::max);
  }

  private void send(int partition, long timestamp, String key, String value) {
    synchronized (this) {
      unacknowledged++;
    }
    producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value), (metadata, e) -> {
      synchronized (this) {
        unacknowledged--;
        if (e != null) {
          failure.compareAndSet(null, e);
        } else {
          acknowledged.add(new Sent(metadata.partition(), metadata.offset(), timestamp, key, value));
        }
        notifyAll();
      }
    });
  }

  /** Waits until every record {@link #start} is to send was sent and acknowledged. */
  void awaitSent(Duration timeout) throws Exception {
    Thread t;
    synchronized (this) {
      t = thread;
    }
    t.join(timeout.toMillis());
    if (t.isAlive()) {
      throw new AssertionError("the producer of " + topic + " was still sending after " + timeout);
    }
    awaitAcknowledged(timeout);
    synchronized (this) {
      thread = null;
    }
  }

  private synchronized void awaitAcknowledged(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (unacknowledged > 0 && failure.get() == null && System.nanoTime() < deadline) {
      wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    if (failure.get() != null) {
      throw new AssertionError("producing to " + topic + " failed", failure.get());
    }
    if (unacknowledged > 0) {
      throw new AssertionError(unacknowledged + " records to " + topic + " not acknowledged within " + timeout);
    }
  }

  /**
   * Ends each partition with one record ({@link #END_KEY}) whose create time lies an hour ahead,
   * sent once the wall clock is {@code maxDelay} past the end of the window of the last record
   * sent. KafkaIO's create-time watermark of a partition that read a record from the future is
   * the wall clock less {@code maxDelay}: past every window of the records before. The end
   * records' own window stays open until the pipeline is drained.
   */
  void endEachPartition(long windowMillis, long maxDelayMillis) throws Exception {
    long last = lastTimestamp.get();
    long lastWindowEnd = last - Math.floorMod(last, windowMillis) + windowMillis;
    long sendAt = lastWindowEnd + maxDelayMillis;
    for (long now = System.currentTimeMillis(); now < sendAt; now = System.currentTimeMillis()) {
      TimeUnit.MILLISECONDS.sleep(Math.min(50, sendAt - now)); // waits for the clock itself
    }
    long future = nextTimestamp(System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1));
    for (int p : partitions) {
      send(p, future, END_KEY, "end-" + p);
    }
    producer.flush();
    awaitAcknowledged(TIMEOUT);
  }

  /** Every record the broker acknowledged so far, in the order of the acknowledgements. */
  synchronized List<Sent> sent() {
    return List.copyOf(acknowledged);
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.interrupt();
      t.join(TIMEOUT.toMillis());
    }
    producer.close(TIMEOUT);
  }
}
