package dev.weir.nexmark;

import dev.weir.nexmark.launcher.Dashboard;
import dev.weir.nexmark.generator.EventTimeline;
import dev.weir.nexmark.launcher.HeapWatch;
import dev.weir.nexmark.launcher.LatencyHistogram;
import dev.weir.nexmark.launcher.RecordLatency;
import dev.weir.nexmark.launcher.ResultsHistory;
import dev.weir.nexmark.launcher.RunRecord;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.queries.NexmarkQuery;
import dev.weir.nexmark.queries.Queries;
import dev.weir.nexmark.reference.ReferenceModels;
import dev.weir.nexmark.spark.NativeSparkQueries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Runs Nexmark queries on any Beam runner ({@code --runner}), checks each result against the
 * query's reference model (count and an order-independent hash of the results), prints a table
 * with the change against the previous run of the same query, appends the runs to the results
 * history (JDBC) under this launch's run id ({@code --runId}) and redraws the dashboard from it.
 * Every query asked for (with {@code --query}, or the whole suite) must run and be correct: a
 * query the runner refuses fails the launch like a wrong one, unless {@code --allowRefused}
 * (for comparing with runners that lack a feature) makes a refused or failed query a line of
 * the table. When the history holds runs of WeirRunner and of other runners under this launch's
 * run id, the table is followed by their comparison (see {@link Dashboard}).
 *
 * <p>With {@code --nativeSparkMaster} the launcher runs no Beam pipeline: it runs the queries
 * written with plain Spark ({@link NativeSparkQueries}) and records them as the runner {@value
 * #NATIVE_SPARK}, the reference for what Spark itself does with the same events.
 *
 * <p>Each run records the heap it needed ({@link HeapWatch}). A rate-limited streaming run
 * ({@code --mode=STREAMING --rateLimited=true}) records its outputs' latency too, p50 and p99
 * from the arrival of the latest event an output depends on to the output ({@link RecordLatency}).
 */
public final class Launcher {
  private static final String NAMESPACE = "nexmark";
  /** The name under which the native Spark queries are recorded, beside the Beam runners'. */
  public static final String NATIVE_SPARK = "SparkNative";

  private Launcher() {}

  public static void main(String[] args) throws Exception {
    if (!run(args)) {
      System.exit(1);
    }
  }

  /**
   * Runs the queries {@code args} ask for; true if every one ran and its results were correct
   * (with {@code --allowRefused}: if every one that ran was correct).
   */
  public static boolean run(String[] args) throws Exception {
    NexmarkOptions options = PipelineOptionsFactory.fromArgs(args).withValidation().as(NexmarkOptions.class);
    boolean allowRefused = options.isAllowRefused();
    List<NexmarkQuery<?>> queries = new ArrayList<>();
    if (options.getQuery() == null || options.getQuery().isEmpty()) {
      queries.addAll(Queries.all());
    } else {
      for (int q : options.getQuery()) {
        queries.add(Queries.byNumber(q));
      }
    }
    String nativeMaster = options.getNativeSparkMaster();
    if (nativeMaster != null && options.getMode() != NexmarkOptions.Mode.BATCH) {
      throw new IllegalArgumentException(
          "--nativeSparkMaster runs the native Spark queries in batch only, not --mode=" + options.getMode());
    }
    NativeSparkQueries nativeSpark =
        nativeMaster == null ? null : new NativeSparkQueries(NativeSparkQueries.session(nativeMaster));
    String runner = nativeSpark != null ? NATIVE_SPARK : options.getRunner().getSimpleName();
    String mode = options.getMode().name();
    String commit = commit();
    String runId = options.getRunId() != null ? options.getRunId() : UUID.randomUUID().toString();
    List<String[]> table = new ArrayList<>();
    boolean allCorrect = true;
    Files.createDirectories(Path.of(options.getDashboard()).toAbsolutePath().getParent());
    // One small run first, not recorded, so that no query's time includes starting the runner
    // (Spark, for WeirRunner).
    NexmarkConfig warmUp = new NexmarkConfig();
    warmUp.numEvents = 1_000;
    try {
      // The native queries warm up on query 0, which they all have.
      NexmarkQuery<?> first = nativeSpark != null ? Queries.byNumber(0) : queries.get(0);
      run(first, warmUp, args, runner, mode, commit, runId, nativeSpark, null);
    } catch (UnsupportedOperationException e) {
      // Reported (and failed) when the query itself runs below.
    } catch (RuntimeException e) {
      if (!allowRefused) {
        throw e;
      }
      // Likewise: reported as FAILED below.
    }
    List<RunRecord> recorded;
    long before;
    int appended = 0;
    try (ResultsHistory history = new ResultsHistory(options.getHistoryUrl()); HeapWatch heap = new HeapWatch()) {
      before = history.count(runId, runner, mode);
      for (NexmarkQuery<?> query : queries) {
        NexmarkConfig config = config(options, query.number());
        System.out.printf(Locale.ROOT, "query %d %s on %s (%s, %,d events)...%n",
            query.number(), query.name(), runner, mode, config.numEvents);
        RunRecord run;
        try {
          run = run(query, config, args, runner, mode, commit, runId, nativeSpark, heap);
        } catch (UnsupportedOperationException e) {
          // The runner refused the pipeline before running it: nothing to record, and the
          // launch fails, since the query was asked for (unless refusals are allowed).
          System.out.printf(Locale.ROOT, "  REFUSED by %s: %s%n", runner, e.getMessage());
          table.add(new String[] {String.valueOf(query.number()), query.name(), "-", "-", "-", "REFUSED", "-", "-", "-"});
          allCorrect &= allowRefused;
          continue;
        } catch (RuntimeException e) {
          if (!allowRefused) {
            throw e;
          }
          // A peer that accepted the pipeline and then failed it: the comparison goes on
          // without this query, as with a refused one.
          System.out.printf(Locale.ROOT, "  FAILED on %s: %s%n", runner, rootCause(e));
          table.add(new String[] {String.valueOf(query.number()), query.name(), "-", "-", "-", "FAILED", "-", "-", "-"});
          continue;
        }
        Optional<RunRecord> baseline = history.baseline(runner, mode, query.number(), config.numEvents);
        history.append(run);
        appended++;
        allCorrect &= run.correct();
        System.out.printf(Locale.ROOT, "  done in %,d ms: %,d results, %s%n",
            run.runtimeMs(), run.results(), run.correct() ? "correct" : "WRONG");
        table.add(new String[] {
          String.valueOf(query.number()), query.name(), String.format(Locale.ROOT, "%,d", run.runtimeMs()),
          String.format(Locale.ROOT, "%,.0f", run.eventsPerSecond()), String.format(Locale.ROOT, "%,d", run.results()),
          run.correct() ? "yes" : "NO",
          baseline.map(b -> String.format(Locale.ROOT, "%+.1f%%", 100 * (run.eventsPerSecond() / b.eventsPerSecond() - 1)))
              .orElse("-"),
          Dashboard.heapText(run),
          Dashboard.latencyText(run)
        });
      }
      recorded = history.all();
      Files.writeString(Path.of(options.getDashboard()),
          Dashboard.render(recorded, options.getRegressionThresholdPercent()), StandardCharsets.UTF_8);
    }
    printTable(runner, mode, table);
    Dashboard.peerTable(recorded, runId, mode).ifPresent(comparison -> System.out.print("\n" + comparison));
    System.out.println("run id " + runId + "; dashboard: " + Path.of(options.getDashboard()).toAbsolutePath());
    return keptEveryRun(options.getHistoryUrl(), runId, runner, mode, before + appended) && allCorrect;
  }

  /**
   * Whether the history, opened again, still holds every run this launch recorded. An embedded
   * H2 file has lost the last runs of a launch once it was closed (H2 2.3.232 during the peers
   * script: the medians then silently covered fewer rounds than they said); a launch whose runs
   * the history lost fails, saying so, rather than leave comparisons short.
   */
  static boolean keptEveryRun(String historyUrl, String runId, String runner, String mode, long expected)
      throws java.sql.SQLException {
    long kept;
    try (ResultsHistory history = new ResultsHistory(historyUrl)) {
      kept = history.count(runId, runner, mode);
    }
    if (kept == expected) {
      return true;
    }
    System.out.printf(Locale.ROOT,
        "LOST RUNS: the results history %s holds %d runs of %s (%s) under run id %s once reopened, not the %d recorded:"
            + " its dashboard and comparisons miss the others%n",
        historyUrl, kept, runner, mode, runId, expected);
    return false;
  }

  static NexmarkConfig config(NexmarkOptions options, int query) {
    NexmarkConfig config = new NexmarkConfig();
    long smoke = (query == 4 || query == 6 || query == 9) ? 10_000 : 100_000;
    config.numEvents = options.getNumEvents() != null
        ? options.getNumEvents()
        : options.getSuite() == NexmarkOptions.Suite.STRESS ? smoke * 100 : smoke;
    config.outputPath = options.getOutputPath();
    if (options.getProbDelayedEvent() < 0 || options.getProbDelayedEvent() > 1) {
      throw new IllegalArgumentException(
          "Invalid --probDelayedEvent=" + options.getProbDelayedEvent() + ": must be between 0 and 1");
    }
    if (options.getOccasionalDelaySec() < 1) {
      throw new IllegalArgumentException(
          "Invalid --occasionalDelaySec=" + options.getOccasionalDelaySec() + ": must be at least 1");
    }
    if (options.getLatencyWarmUpSec() < 0) {
      throw new IllegalArgumentException(
          "Invalid --latencyWarmUpSec=" + options.getLatencyWarmUpSec() + ": must be 0 or more");
    }
    config.rateLimited = options.isRateLimited();
    config.probDelayedEvent = options.getProbDelayedEvent();
    config.occasionalDelaySec = options.getOccasionalDelaySec();
    return config;
  }

  /**
   * One run of {@code query}, on the Beam runner the options name or, if {@code nativeSpark} is
   * given, as plain Spark; {@code heap} (null: not recorded) watches it.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static RunRecord run(
      NexmarkQuery<?> query, NexmarkConfig config, String[] args, String runner, String mode, String commit,
      String runId, NativeSparkQueries nativeSpark, HeapWatch heap) {
    // Only the count and hash are kept: the model's results would otherwise stay on the heap
    // the run is measured with.
    boolean latency = config.rateLimited && mode.equals(NexmarkOptions.Mode.STREAMING.name());
    List<TimestampedValue<Event>> input = NexmarkEvents.inMemory(config);
    long lastEventMs =
        latency ? input.stream().mapToLong(e -> e.getTimestamp().getMillis()).max().orElse(Long.MIN_VALUE) : 0;
    Collection<?> model = ReferenceModels.forQuery(query.number()).expected(input, config);
    input = null;
    long expectedCount = model.size();
    long expectedHash = 0;
    for (Object o : model) {
      expectedHash += o.hashCode();
    }
    model = null;
    if (nativeSpark != null) {
      if (heap != null) {
        heap.start();
      }
      long start = System.nanoTime();
      NativeSparkQueries.Result result = nativeSpark.run(query.number(), config);
      long runtimeMs = Math.max(1, (System.nanoTime() - start) / 1_000_000);
      return new RunRecord(runId, Instant.now(), commit, runner, mode, query.number(), config.numEvents, runtimeMs,
          config.numEvents * 1000.0 / runtimeMs, result.count(),
          result.count() == expectedCount && result.hash() == expectedHash,
          heap == null ? -1 : heap.peakMb(), heap == null ? -1 : heap.liveMb());
    }
    NexmarkOptions options = PipelineOptionsFactory.fromArgs(args).as(NexmarkOptions.class);
    options.setJobName("nexmark-q" + query.number());
    // A rate-limited stream starts here, before the pipeline is built, and its run is timed from
    // here too: its events arrive at offsets from this start, so its last one cannot arrive before
    // the run has lasted that long.
    long streamStartNanos = System.nanoTime();
    if (latency) {
      // Every reader counts from this start, so that RecordLatency knows each event's arrival.
      config = config.copy();
      config.streamStartWallMs = System.currentTimeMillis();
    }
    Pipeline p = Pipeline.create(options);
    PCollection<Event> events = options.getMode() == NexmarkOptions.Mode.STREAMING
        ? p.apply("Events", NexmarkEvents.unbounded(config))
        : p.apply("Events", NexmarkEvents.bounded(config));
    PCollection out = (PCollection) events.apply(query.name(), (PTransform) query.transform(config));
    out = ((NexmarkQuery) query).checked(out);
    out.apply("Results", ParDo.of(new CountResults(latency
        ? new RecordLatency(config.streamStartWallMs, EventTimeline.BASE_TIME_MS + options.getLatencyWarmUpSec() * 1000L, lastEventMs)
        : null)));
    if (heap != null) {
      heap.start();
    }
    long start = latency ? streamStartNanos : System.nanoTime();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    long runtimeMs = Math.max(1, (System.nanoTime() - start) / 1_000_000);
    long peakMb = heap == null ? -1 : heap.peakMb();
    long liveMb = heap == null ? -1 : heap.liveMb();
    long count = counter(result, "results");
    long hash = counter(result, "resultHash");
    LatencyHistogram latencies = latency ? LatencyHistogram.of(counters(result, LatencyHistogram.NAMESPACE)) : null;
    return new RunRecord(runId, Instant.now(), commit, runner, mode, query.number(), config.numEvents, runtimeMs,
        config.numEvents * 1000.0 / runtimeMs, count, count == expectedCount && hash == expectedHash, peakMb, liveMb,
        latencies == null ? -1 : latencies.percentile(0.5), latencies == null ? -1 : latencies.percentile(0.99));
  }

  /** The innermost cause, which names what went wrong rather than which layer rethrew it. */
  private static String rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.toString();
  }

  private static long counter(PipelineResult result, String name) {
    for (MetricResult<Long> c : result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.named(NAMESPACE, name)).build())
        .getCounters()) {
      return value(c);
    }
    return 0;
  }

  /** Every counter of {@code namespace}, by name. */
  private static Map<String, Long> counters(PipelineResult result, String namespace) {
    Map<String, Long> values = new HashMap<>();
    for (MetricResult<Long> c : result.metrics()
        .queryMetrics(MetricsFilter.builder().addNameFilter(MetricNameFilter.inNamespace(namespace)).build())
        .getCounters()) {
      values.merge(c.getName().getName(), value(c), Long::sum);
    }
    return values;
  }

  /** A counter's committed value, or its attempted one on a runner that commits none. */
  private static long value(MetricResult<Long> c) {
    try {
      return c.getCommitted();
    } catch (UnsupportedOperationException e) {
      return c.getAttempted();
    }
  }

  /** Counts the results and adds up their hash codes, which do not depend on their order. */
  private static final class CountResults extends DoFn<Object, Void> {
    private final Counter results = Metrics.counter(NAMESPACE, "results");
    private final Counter hash = Metrics.counter(NAMESPACE, "resultHash");
    private final @Nullable RecordLatency latency;

    /** {@code latency}: records each result's latency too (a rate-limited stream), or null. */
    CountResults(@Nullable RecordLatency latency) {
      this.latency = latency;
    }

    @ProcessElement
    public void process(@Element Object result, @Timestamp org.joda.time.Instant timestamp) {
      results.inc();
      hash.inc(result.hashCode());
      if (latency != null) {
        latency.record(timestamp);
      }
    }
  }

  private static void printTable(String runner, String mode, List<String[]> rows) {
    String[] header = {"query", "name", "runtime ms", "events/s", "results", "correct", "vs baseline", "heap MB peak/live",
      "latency ms p50/p99"};
    System.out.println();
    System.out.println("Nexmark on " + runner + " (" + mode + ")");
    String format = "%5s  %-32s %12s %12s %10s %8s %12s %18s %19s%n";
    System.out.printf(format, (Object[]) header);
    for (String[] row : rows) {
      System.out.printf(format, (Object[]) row);
    }
  }

  private static String commit() {
    try {
      Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return git.waitFor() == 0 && !out.isEmpty() ? out : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
