package dev.weir.translation;

import dev.weir.testing.PAssertCounts;
import dev.weir.translation.batch.BatchTranslators;
import dev.weir.translation.metrics.PipelineMetrics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Translation tests run pipelines through {@link PipelineTranslator} on one embedded Spark
 * session per test JVM, without the runner module.
 */
public final class TestSpark {
  private static SparkSession session;
  private static final List<SparkListenerJobStart> JOBS = Collections.synchronizedList(new ArrayList<>());
  private static final List<String> PLANS = Collections.synchronizedList(new ArrayList<>());

  private TestSpark() {}

  public static synchronized SparkSession session() {
    if (session == null) {
      session =
          SparkSession.builder()
              .master("local[2]")
              .appName("weir-translation-tests")
              .config("spark.sql.shuffle.partitions", "2")
              .config("spark.ui.enabled", "false")
              // As the runner's sessions cache: every test that persists goes through it.
              .config("spark.sql.cache.serializer", RowCacheSerializer.class.getName())
              .getOrCreate();
      session.sparkContext().addSparkListener(
          new SparkListener() {
            @Override
            public void onJobStart(SparkListenerJobStart jobStart) {
              JOBS.add(jobStart);
            }
          });
      session.listenerManager().register(
          new QueryExecutionListener() {
            @Override
            public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
              PLANS.add(qe.executedPlan().toString());
            }

            @Override
            public void onFailure(String funcName, QueryExecution qe, Exception exception) {}
          });
    }
    return session;
  }

  /** The executed Spark plans of the Dataset actions since the last call. */
  public static List<String> drainPlans() {
    drainJobs();
    synchronized (PLANS) {
      List<String> plans = new ArrayList<>(PLANS);
      PLANS.clear();
      return plans;
    }
  }

  public static Pipeline pipeline() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setJobName("translation-test");
    options.setRunner(TranslationTestRunner.class);
    return Pipeline.create(options);
  }

  /** Runs {@code pipeline} the way WeirRunner does in batch; returns the plan it ran. */
  public static PipelineTranslator run(Pipeline pipeline) {
    return run(pipeline, TimePolicies.batchDefaults());
  }

  /**
   * Runs {@code pipeline} in batch under {@code policies} and checks that each of its PAsserts
   * ran ({@link PAssertCounts}); returns the plan it ran.
   */
  public static PipelineTranslator run(Pipeline pipeline, TimePolicies policies) {
    Overrides.apply(pipeline);
    PipelineTranslator plan = PipelineTranslator.check(pipeline, policies, BatchTranslators.INSTANCE);
    PipelineMetrics metrics = PipelineMetrics.register(session().sparkContext(), "test");
    plan.execute(session(), pipeline.getOptions(), metrics);
    PAssertCounts.verify(pipeline, metrics.results());
    return plan;
  }

  /** The Spark jobs started since the last call, once the listener bus has delivered them. */
  public static List<SparkListenerJobStart> drainJobs() {
    try {
      session().sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in 60 s", e);
    }
    synchronized (JOBS) {
      List<SparkListenerJobStart> jobs = new ArrayList<>(JOBS);
      JOBS.clear();
      return jobs;
    }
  }
}
