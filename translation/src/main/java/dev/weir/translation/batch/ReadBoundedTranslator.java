package dev.weir.translation.batch;

import dev.weir.translation.Rdds;
import dev.weir.translation.StepFailure;
import dev.weir.translation.TransformTranslator;
import dev.weir.translation.TranslationContext;
import dev.weir.translation.metrics.BundleMetrics;
import dev.weir.translation.metrics.PipelineMetrics;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.sdk.io.BoundedSource;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.util.construction.SplittableParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primitive bounded read ({@code Read.Bounded}, or the splittable-DoFn-wrapped read converted
 * back to it): the source is split on the driver into bundles of about
 * {@code estimatedSize / parallelism} bytes, which Spark partitions read, several bundles per
 * partition when there are many more bundles than cores.
 */
public final class ReadBoundedTranslator implements TransformTranslator<PTransform<?, ?>> {
  private static final Logger LOG = LoggerFactory.getLogger(ReadBoundedTranslator.class);
  private static final int TASKS_PER_CORE = 4;

  static BoundedSource<?> sourceOf(PTransform<?, ?> transform) {
    if (transform instanceof SplittableParDo.PrimitiveBoundedRead) {
      return ((SplittableParDo.PrimitiveBoundedRead<?>) transform).getSource();
    }
    return ((Read.Bounded<?>) transform).getSource();
  }

  @Override
  @SuppressWarnings("unchecked")
  public void translate(PTransform<?, ?> transform, TranslationContext context) {
    PCollection<Object> out = context.output();
    BoundedSource<Object> source = (BoundedSource<Object>) sourceOf(transform);
    PipelineOptions options = context.options().get();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(context.session().sparkContext());
    int parallelism = Math.max(1, jsc.defaultParallelism());
    List<byte[]> bundles = new ArrayList<>();
    try {
      long size = BundleMetrics.onDriver(context.metrics(), context.stepName(), () -> estimatedSize(source, options));
      long desired = size > 0 ? Math.max(1, size / parallelism) : 64L * 1024 * 1024;
      List<? extends BoundedSource<Object>> splits =
          BundleMetrics.onDriver(context.metrics(), context.stepName(), () -> source.split(desired, options));
      for (BoundedSource<Object> bundle : splits) {
        bundles.add(SerializableUtils.serializeToByteArray(bundle));
      }
    } catch (Exception e) {
      throw new StepFailure(context.stepName(), e);
    }
    // A source may split into many more bundles than there are cores (Nexmark's generators,
    // files): every Spark task costs a scheduling round trip, so a partition reads several
    // bundles, a few tasks per core.
    int partitions = Math.max(1, Math.min(bundles.size(), TASKS_PER_CORE * parallelism));
    JavaRDD<WindowedValue<Object>> read =
        Rdds.flatMap(
            jsc.parallelize(bundles, partitions), new ReadBundle(context.stepName(), context.options(), context.metrics()));
    context.putRdd(out, read, false);
  }

  private static long estimatedSize(BoundedSource<?> source, PipelineOptions options) {
    try {
      return source.getEstimatedSizeBytes(options);
    } catch (Exception e) {
      LOG.info("No size estimate for {}, splitting by a default bundle size", source, e);
      return 0;
    }
  }

  /** Reads one bundle lazily, closing the reader at the end or when the task ends. */
  private static final class ReadBundle implements FlatMapFunction<byte[], WindowedValue<Object>> {
    private final String stepName;
    private final SerializablePipelineOptions options;
    private final PipelineMetrics metrics;
    private transient boolean closed;

    ReadBundle(String stepName, SerializablePipelineOptions options, PipelineMetrics metrics) {
      this.stepName = stepName;
      this.options = options;
      this.metrics = metrics;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Iterator<WindowedValue<Object>> call(byte[] serialized) {
      BoundedSource<Object> source =
          (BoundedSource<Object>) SerializableUtils.deserializeFromByteArray(serialized, stepName);
      BundleMetrics bundleMetrics = BundleMetrics.start(metrics, stepName);
      BoundedSource.BoundedReader<Object> reader;
      boolean available;
      try (Closeable scope = bundleMetrics.enter()) {
        reader = source.createReader(options.get());
        available = reader.start();
      } catch (Exception e) {
        throw new StepFailure(stepName, e);
      }
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((TaskContext ctx) -> closeQuietly(reader));
      }
      return new Iterator<>() {
        private final ArrayDeque<WindowedValue<Object>> buffer = new ArrayDeque<>();
        private boolean hasCurrent = available;

        @Override
        public boolean hasNext() {
          if (buffer.isEmpty() && hasCurrent) {
            // Several elements per metrics scope (ELEMENTS_PER_SCOPE says why).
            try (Closeable scope = bundleMetrics.enter()) {
              while (hasCurrent && buffer.size() < BundleMetrics.ELEMENTS_PER_SCOPE) {
                buffer.add(
                    WindowedValues.timestampedValueInGlobalWindow(reader.getCurrent(), reader.getCurrentTimestamp()));
                hasCurrent = reader.advance();
              }
            } catch (Exception e) {
              throw new StepFailure(stepName, e);
            }
          }
          if (buffer.isEmpty()) {
            closeQuietly(reader);
            return false;
          }
          return true;
        }

        @Override
        public WindowedValue<Object> next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          return buffer.poll();
        }
      };
    }

    private void closeQuietly(BoundedSource.BoundedReader<Object> reader) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        reader.close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("Closing a reader of step '{}' failed", stepName, e);
      }
    }
  }
}
