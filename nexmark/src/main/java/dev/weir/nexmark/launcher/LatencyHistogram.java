package dev.weir.nexmark.launcher;

import java.util.Map;
import java.util.TreeMap;

/**
 * Latencies counted per bucket, so that any Beam runner can collect them as counters (one per
 * bucket, named by its upper bound) and the launcher can read percentiles back. Buckets are 10 ms
 * wide up to 1 s, 100 ms up to 10 s and 1 s beyond, so a percentile (the upper bound of the bucket
 * it falls in) is at most 10 ms or 10% above the true value.
 */
public final class LatencyHistogram {
  /** The namespace of the bucket counters. */
  public static final String NAMESPACE = "nexmark.latency";
  private static final String PREFIX = "le-";

  private final TreeMap<Long, Long> counts = new TreeMap<>();

  /** The upper bound of the bucket {@code latencyMs} falls in; 0 for no latency at all. */
  static long upperBound(long latencyMs) {
    if (latencyMs <= 0) {
      return 0;
    }
    long width = latencyMs <= 1_000 ? 10 : latencyMs <= 10_000 ? 100 : 1_000;
    return (latencyMs + width - 1) / width * width;
  }

  /** The counter that counts {@code latencyMs}. */
  public static String counterName(long latencyMs) {
    return PREFIX + upperBound(latencyMs);
  }

  /** The histogram of the bucket counters {@code counters} (name to count); others are ignored. */
  public static LatencyHistogram of(Map<String, Long> counters) {
    LatencyHistogram h = new LatencyHistogram();
    counters.forEach((name, count) -> {
      if (name.startsWith(PREFIX) && count > 0) {
        h.counts.merge(Long.parseLong(name.substring(PREFIX.length())), count, Long::sum);
      }
    });
    return h;
  }

  public long count() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * The latency that a fraction {@code p} (0 to 1) of the counted ones do not exceed, as its
   * bucket's upper bound in ms; -1 if nothing was counted.
   */
  public long percentile(double p) {
    if (p <= 0 || p > 1) {
      throw new IllegalArgumentException("A percentile is a fraction in (0, 1], not " + p);
    }
    long total = count();
    if (total == 0) {
      return -1;
    }
    long rank = (long) Math.ceil(p * total);
    long seen = 0;
    for (Map.Entry<Long, Long> bucket : counts.entrySet()) {
      seen += bucket.getValue();
      if (seen >= rank) {
        return bucket.getKey();
      }
    }
    return counts.lastKey();
  }
}
