package dev.weir.nexmark.queries;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Done;
import dev.weir.nexmark.model.Event;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.ResolveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterEach;
import org.apache.beam.sdk.transforms.windowing.AfterFirst;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Query 10, LOG_TO_SHARDED_FILES: every event logged to one of 25 shards per fixed window, a
 * file per shard and pane (panes after {@code maxLogEvents} events, at the end of the window,
 * then for late data after {@code maxLogEvents} or 10 s of processing time), under
 * {@code outputPath} when set; then one {@link Done} per window once all its shards are written.
 */
public final class Query10 implements NexmarkQuery<Done> {
  private static final int SHARDS = 25;

  @Override
  public int number() {
    return 10;
  }

  @Override
  public String name() {
    return "LOG_TO_SHARDED_FILES";
  }

  static String done(long windowMaxTimestampMs) {
    return "written for timestamp " + new org.joda.time.Instant(windowMaxTimestampMs);
  }

  @Override
  public PTransform<PCollection<Event>, PCollection<Done>> transform(NexmarkConfig config) {
    Duration size = Duration.standardSeconds(config.windowSizeSec);
    long maxLogEvents = config.maxLogEvents;
    String outputPath = config.outputPath;
    return new PTransform<>("LogToShardedFiles") {
      @Override
      public PCollection<Done> expand(PCollection<Event> events) {
        return events
            .apply("ByShard", ParDo.of(new ByShard()))
            .setCoder(KvCoder.of(VarIntCoder.of(), Event.EventCoder.INSTANCE))
            .apply("LogWindows", Window.<KV<Integer, Event>>into(FixedWindows.of(size))
                .triggering(AfterEach.inOrder(
                    Repeatedly.forever(AfterPane.elementCountAtLeast((int) maxLogEvents))
                        .orFinally(AfterWatermark.pastEndOfWindow()),
                    Repeatedly.forever(AfterFirst.of(
                        AfterPane.elementCountAtLeast((int) maxLogEvents),
                        AfterProcessingTime.pastFirstElementInPane().plusDelayOf(Duration.standardSeconds(10))))))
                .discardingFiredPanes()
                .withAllowedLateness(Duration.standardDays(1)))
            .apply("GroupByShard", GroupByKey.create())
            .apply("WriteShard", ParDo.of(new WriteShard(outputPath)))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("DoneWindows", Window.<KV<Integer, String>>into(FixedWindows.of(size))
                .triggering(DefaultTrigger.of())
                .discardingFiredPanes()
                .withAllowedLateness(Duration.standardDays(1)))
            .apply("GroupWritten", GroupByKey.create())
            .apply("Done", ParDo.of(new DoneFn()))
            .setCoder(SerializableCoder.of(Done.class));
      }
    };
  }

  private static final class ByShard extends DoFn<Event, KV<Integer, Event>> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Integer, Event>> out) {
      out.output(KV.of(Math.abs(e.hashCode() % SHARDS), e));
    }
  }

  /** Writes a pane of a shard to its own file (when there is an output path); says which. */
  private static final class WriteShard extends DoFn<KV<Integer, Iterable<Event>>, KV<Integer, String>> {
    private final String outputPath;

    WriteShard(String outputPath) {
      this.outputPath = outputPath;
    }

    @ProcessElement
    public void process(ProcessContext c, BoundedWindow window) throws Exception {
      IntervalWindow w = (IntervalWindow) window;
      String name = "LOG-" + w.start().getMillis() + "-shard-" + c.element().getKey() + "-pane-" + c.pane().getIndex()
          + "-" + c.pane().getTiming() + ".txt";
      if (outputPath != null) {
        ResourceId file = FileSystems.matchNewResource(outputPath, true)
            .resolve(name, ResolveOptions.StandardResolveOptions.RESOLVE_FILE);
        try (OutputStream out = Channels.newOutputStream(FileSystems.create(file, "text/plain"))) {
          for (Event e : c.element().getValue()) {
            out.write((e + "\n").getBytes(StandardCharsets.UTF_8));
          }
        }
      }
      c.output(KV.of(0, name));
    }
  }

  private static final class DoneFn extends DoFn<KV<Integer, Iterable<String>>, Done> {
    @ProcessElement
    public void process(ProcessContext c, BoundedWindow window) {
      c.output(new Done(done(window.maxTimestamp().getMillis())));
    }
  }
}
