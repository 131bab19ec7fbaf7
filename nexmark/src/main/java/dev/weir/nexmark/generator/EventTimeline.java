package dev.weir.nexmark.generator;

import dev.weir.nexmark.NexmarkConfig;
import java.io.Serializable;

/**
 * Event time as a function of an event's number on a generator's timeline: the inter-event
 * delay comes from the rate (constant, or stepping through a square or sine shape), multiplied
 * by the number of generators that share the timeline so that together they produce the rate.
 * Times start at Nexmark's base time, 2015-07-15T00:00:00Z.
 */
public final class EventTimeline implements Serializable {
  public static final long BASE_TIME_MS = 1_436_918_400_000L;
  private static final int SINE_STEPS = 10;

  private final long[] delaysUs;
  private final long stepLengthSec;
  private final long eventsPerEpoch;
  private final long epochPeriodMs;

  public EventTimeline(NexmarkConfig config) {
    this.delaysUs = interEventDelaysUs(config);
    int steps = config.rateShape == NexmarkConfig.RateShape.SQUARE ? 2 : SINE_STEPS;
    this.stepLengthSec = (config.ratePeriodSec + steps - 1) / steps;
    long events = 0;
    long period = 0;
    if (delaysUs.length > 1) {
      for (long d : delaysUs) {
        long k = (stepLengthSec * 1_000_000) / d;
        events += k;
        period += (k * d) / 1000;
      }
    }
    this.eventsPerEpoch = events;
    this.epochPeriodMs = period;
  }

  private static long periodUs(long rate) {
    return (1_000_000 + rate / 2) / rate;
  }

  private static long[] interEventDelaysUs(NexmarkConfig config) {
    long generators = config.numEventGenerators;
    if (config.firstEventRate == config.nextEventRate) {
      return new long[] {periodUs(config.firstEventRate) * generators};
    }
    if (config.rateShape == NexmarkConfig.RateShape.SQUARE) {
      return new long[] {periodUs(config.firstEventRate) * generators, periodUs(config.nextEventRate) * generators};
    }
    double mid = (config.firstEventRate + config.nextEventRate) / 2.0;
    double amplitude = (config.firstEventRate - config.nextEventRate) / 2.0;
    long[] delays = new long[SINE_STEPS];
    for (int i = 0; i < SINE_STEPS; i++) {
      double rate = mid + amplitude * Math.cos(2 * Math.PI * i / SINE_STEPS);
      delays[i] = periodUs(Math.round(rate)) * generators;
    }
    return delays;
  }

  /** The longest delay between two events of one generator, in microseconds. */
  public long longestDelayUs() {
    long max = 0;
    for (long d : delaysUs) {
      max = Math.max(max, d);
    }
    return max;
  }

  /** The event time, in epoch milliseconds, of event number {@code n}. */
  public long timestampMs(long n) {
    if (delaysUs.length == 1) {
      return BASE_TIME_MS + (n * delaysUs[0]) / 1000;
    }
    long epoch = n / eventsPerEpoch;
    long m = n % eventsPerEpoch;
    long offset = 0;
    for (long d : delaysUs) {
      long k = (stepLengthSec * 1_000_000) / d;
      if (m < k) {
        return BASE_TIME_MS + epoch * epochPeriodMs + offset + (m * d) / 1000;
      }
      m -= k;
      offset += (k * d) / 1000;
    }
    throw new IllegalStateException("Event number " + n + " falls outside the rate's epoch");
  }
}
