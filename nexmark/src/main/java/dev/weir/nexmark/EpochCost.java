package dev.weir.nexmark;

import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.queries.NexmarkQuery;
import dev.weir.nexmark.queries.Queries;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * The fixed cost of a streaming epoch on WeirRunner: a Nexmark query's graph runs on the
 * unbounded source with nothing due (its stream starts a day from now), so every epoch reads
 * nothing and moves no watermark, and what an epoch costs is what the runner spends on it alone.
 * Prints, per query, the mean wall time of an epoch and the Spark jobs it ran.
 *
 * <p>With {@code --eventsPerSec=N} the stream starts now instead, at N events a second, so that
 * epochs carry data, move watermarks and fire windows: the same figures then say what an epoch
 * with data costs, and how many Spark jobs it takes.
 *
 * <p>{@code --epochQuietMillis=1 --epochIdleWaitMillis=0} are set unless given: the wait for
 * records that are not there and the pause after an epoch without progress are choices, not
 * cost.
 *
 * <pre>mvn -pl nexmark exec:exec@epoch-cost -Depoch.args="--query=5,8 --sparkMaster=local[2]"</pre>
 *
 * Options: {@code --query} (default 5), {@code --warmUpSec} (default 5), {@code --measureSec}
 * (default 20) and {@code --eventsPerSec} (default 0: no data), then any WeirRunner option.
 */
public final class EpochCost {
  private static final Pattern EPOCH_GROUP = Pattern.compile(".*-epoch-(\\d+)");

  private EpochCost() {}

  public static void main(String[] args) throws Exception {
    List<Integer> queries = List.of(5);
    int warmUpSec = 5;
    int measureSec = 20;
    int eventsPerSec = 0;
    List<String> runnerArgs = new ArrayList<>(List.of("--runner=WeirRunner"));
    for (String arg : args) {
      if (arg.startsWith("--query=")) {
        queries = Arrays.stream(arg.substring(8).split(",")).map(Integer::valueOf).toList();
      } else if (arg.startsWith("--warmUpSec=")) {
        warmUpSec = positive(arg, "--warmUpSec=");
      } else if (arg.startsWith("--measureSec=")) {
        measureSec = positive(arg, "--measureSec=");
      } else if (arg.startsWith("--eventsPerSec=")) {
        eventsPerSec = positive(arg, "--eventsPerSec=");
      } else {
        runnerArgs.add(arg);
      }
    }
    if (runnerArgs.stream().noneMatch(a -> a.startsWith("--epochQuietMillis="))) {
      runnerArgs.add("--epochQuietMillis=1");
    }
    // The run goes on in the background while its epochs are counted, until cancelled.
    runnerArgs.add("--blockOnRun=false");
    if (runnerArgs.stream().noneMatch(a -> a.startsWith("--epochIdleWaitMillis="))) {
      runnerArgs.add("--epochIdleWaitMillis=0");
    }
    List<String> lines = new ArrayList<>();
    for (int query : queries) {
      lines.add(measure(query, warmUpSec, measureSec, eventsPerSec, runnerArgs.toArray(new String[0])));
    }
    System.out.println();
    System.out.println(
        (eventsPerSec == 0 ? "Empty epochs, " : "Epochs of a stream of " + eventsPerSec + " events/s, ") + String.join(" ", runnerArgs));
    System.out.println("query   epochs   ms/epoch   Spark jobs/epoch");
    lines.forEach(System.out::println);
  }

  private static int positive(String arg, String prefix) {
    int value = Integer.parseInt(arg.substring(prefix.length()));
    if (value < 1) {
      throw new IllegalArgumentException("Invalid " + arg + ": must be at least 1");
    }
    return value;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static String measure(int number, int warmUpSec, int measureSec, int eventsPerSec, String[] args)
      throws Exception {
    NexmarkQuery<?> query = Queries.byNumber(number);
    NexmarkConfig config = new NexmarkConfig();
    config.rateLimited = true;
    if (eventsPerSec == 0) {
      config.numEvents = 1_000_000;
      // Nothing is due before this: every reader finds its split empty, epoch after epoch.
      config.streamStartWallMs = System.currentTimeMillis() + 86_400_000L;
    } else {
      config.firstEventRate = eventsPerSec;
      config.nextEventRate = eventsPerSec;
      // Enough for the warm-up and the measurement, and then some: the stream must not end in them.
      config.numEvents = 2L * (warmUpSec + measureSec) * eventsPerSec;
      config.streamStartWallMs = System.currentTimeMillis();
    }
    NexmarkOptions options = PipelineOptionsFactory.fromArgs(args).as(NexmarkOptions.class);
    options.setJobName("epoch-cost-q" + number);
    Pipeline p = Pipeline.create(options);
    PCollection<Event> events = p.apply("Events", NexmarkEvents.unbounded(config));
    events.apply(query.name(), (PTransform) query.transform(config));
    // Each epoch's jobs form the job group "<job>-epoch-N"; an epoch starts with its first job.
    ConcurrentSkipListMap<Long, Long> epochStartMs = new ConcurrentSkipListMap<>();
    ConcurrentSkipListMap<Long, AtomicLong> jobsOfEpoch = new ConcurrentSkipListMap<>();
    PipelineResult result = p.run();
    SparkSession.active().sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart jobStart) {
        String group = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.jobGroup.id");
        Matcher m = group == null ? null : EPOCH_GROUP.matcher(group);
        if (m != null && m.matches()) {
          long epoch = Long.parseLong(m.group(1));
          epochStartMs.merge(epoch, jobStart.time(), Math::min);
          jobsOfEpoch.computeIfAbsent(epoch, e -> new AtomicLong()).incrementAndGet();
        }
      }
    });
    try {
      Thread.sleep((warmUpSec + measureSec) * 1000L);
      if (epochStartMs.isEmpty()) {
        throw new IllegalStateException("Query " + number + " ran no streaming epoch in " + (warmUpSec + measureSec)
            + " s: is the runner WeirRunner?");
      }
      long warmedUpMs = epochStartMs.firstEntry().getValue() + warmUpSec * 1000L;
      // From the first epoch after the warm-up to the last one that has started (not counted:
      // its jobs may still be running).
      var first = epochStartMs.ceilingEntry(epochStartMs.entrySet().stream()
          .filter(e -> e.getValue() >= warmedUpMs).findFirst().map(e -> e.getKey()).orElse(Long.MAX_VALUE));
      var last = epochStartMs.lastEntry();
      if (first == null || last.getKey() - first.getKey() < 2) {
        throw new IllegalStateException("Query " + number + ": too few epochs after the warm-up to measure");
      }
      long epochs = last.getKey() - first.getKey();
      long jobs = jobsOfEpoch.subMap(first.getKey(), last.getKey()).values().stream().mapToLong(AtomicLong::get).sum();
      return String.format(Locale.ROOT, "%5d %8d %10.1f %18.1f", number, epochs,
          (double) (last.getValue() - first.getValue()) / epochs, (double) jobs / epochs);
    } finally {
      result.cancel();
      result.waitUntilFinish();
    }
  }
}
