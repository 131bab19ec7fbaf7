package dev.weir.nexmark.generator;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.TimestampedValue;
import org.junit.jupiter.api.Test;

/** The unbounded source: delayed events, checkpoints, the watermark, rate limiting. */
class UnboundedEventSourceTest {
  private static final PipelineOptions OPTIONS = PipelineOptionsFactory.create();

  private static NexmarkConfig config(double probDelayedEvent) {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 5_000;
    config.numEventGenerators = 1;
    config.probDelayedEvent = probDelayedEvent;
    config.occasionalDelaySec = 3;
    return config;
  }

  @Test
  void delayedEventsArriveAfterLaterOnesAndNothingIsLost() throws Exception {
    NexmarkConfig config = config(0.1);
    List<TimestampedValue<Event>> read = new ArrayList<>();
    long outOfOrder = 0;
    long latest = Long.MIN_VALUE;
    try (UnboundedSource.UnboundedReader<Event> reader = UnboundedEventSource.of(config).createReader(OPTIONS, null)) {
      for (boolean more = reader.start(); more; more = reader.advance()) {
        long t = reader.getCurrentTimestamp().getMillis();
        read.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
        if (t < latest) {
          outOfOrder++;
        }
        latest = Math.max(latest, t);
      }
      assertThat(reader.getWatermark(), equalTo(BoundedWindow.TIMESTAMP_MAX_VALUE));
    }
    assertThat("some events arrive out of order", outOfOrder, greaterThan(0L));
    List<TimestampedValue<Event>> inOrder = new ArrayList<>();
    Generator.whole(config).forEachRemaining(inOrder::add);
    assertThat(new HashSet<>(read), equalTo(new HashSet<>(inOrder)));
    assertThat(read.size(), equalTo(inOrder.size()));
  }

  @Test
  void theWatermarkNeverPassesAnEventStillToCome() throws Exception {
    NexmarkConfig config = config(0.2);
    List<Long> watermarks = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    try (UnboundedSource.UnboundedReader<Event> reader = UnboundedEventSource.of(config).createReader(OPTIONS, null)) {
      for (boolean more = reader.start(); more; more = reader.advance()) {
        times.add(reader.getCurrentTimestamp().getMillis());
        watermarks.add(reader.getWatermark().getMillis());
      }
    }
    // The watermark after event i bounds every event after i.
    long leastAfter = Long.MAX_VALUE;
    for (int i = times.size() - 1; i >= 0; i--) {
      assertThat("watermark after event " + i, watermarks.get(i), lessThanOrEqualTo(leastAfter));
      leastAfter = Math.min(leastAfter, times.get(i));
    }
  }

  @Test
  void resumingFromCheckpointsGivesTheSameStream() throws Exception {
    NexmarkConfig config = config(0.1);
    UnboundedEventSource source = UnboundedEventSource.of(config);
    List<TimestampedValue<Event>> whole = new ArrayList<>();
    try (UnboundedSource.UnboundedReader<Event> reader = source.createReader(OPTIONS, null)) {
      for (boolean more = reader.start(); more; more = reader.advance()) {
        whole.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
      }
    }
    List<TimestampedValue<Event>> resumed = new ArrayList<>();
    UnboundedEventSource.Checkpoint mark = null;
    int slice = 0;
    while (true) {
      try (UnboundedSource.UnboundedReader<Event> reader = source.createReader(OPTIONS, mark)) {
        int n = 0;
        boolean more = reader.start();
        for (; more && n < 37 + slice % 5; n++) {
          resumed.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
          if (n + 1 < 37 + slice % 5) {
            more = reader.advance();
          }
        }
        mark = CoderUtils.clone(source.getCheckpointMarkCoder(), (UnboundedEventSource.Checkpoint) reader.getCheckpointMark());
        slice++;
        if (n == 0) {
          break;
        }
      }
    }
    assertThat(resumed, equalTo(whole));
  }

  /**
   * Three splits asked for, three given; between them every event of the unsplit source once,
   * each split in time order.
   */
  @Test
  void splitsShareTheBlocksAndTogetherReadTheWholeStream() throws Exception {
    NexmarkConfig config = config(0);
    config.numEventGenerators = 10;
    List<UnboundedEventSource> splits = UnboundedEventSource.of(config).split(3, OPTIONS);
    assertThat(splits.size(), equalTo(3));
    List<TimestampedValue<Event>> read = new ArrayList<>();
    for (UnboundedEventSource split : splits) {
      long latest = Long.MIN_VALUE;
      try (UnboundedSource.UnboundedReader<Event> reader = split.createReader(OPTIONS, null)) {
        for (boolean more = reader.start(); more; more = reader.advance()) {
          assertThat("in time order within a split", reader.getCurrentTimestamp().getMillis(),
              greaterThanOrEqualTo(latest));
          latest = reader.getCurrentTimestamp().getMillis();
          read.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
        }
      }
    }
    List<TimestampedValue<Event>> whole = new ArrayList<>();
    try (UnboundedSource.UnboundedReader<Event> reader = UnboundedEventSource.of(config).createReader(OPTIONS, null)) {
      for (boolean more = reader.start(); more; more = reader.advance()) {
        whole.add(TimestampedValue.of(reader.getCurrent(), reader.getCurrentTimestamp()));
      }
    }
    assertThat(whole.size(), equalTo(5_000));
    assertThat(read.size(), equalTo(whole.size()));
    assertThat(new HashSet<>(read), equalTo(new HashSet<>(whole)));
    assertThat("no more splits than blocks", UnboundedEventSource.of(config).split(50, OPTIONS).size(), equalTo(10));
  }

  @Test
  void rateLimitedEventsWaitForTheirTime() throws Exception {
    NexmarkConfig config = config(0);
    config.firstEventRate = 1;
    config.nextEventRate = 1;
    config.rateLimited = true;
    try (UnboundedSource.UnboundedReader<Event> reader = UnboundedEventSource.of(config).createReader(OPTIONS, null)) {
      assertThat("the first event is due at the start", reader.start(), is(true));
      assertThat("the second is due a second later", reader.advance(), is(false));
    }
  }
}
