package dev.weir.nexmark.launcher;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap one query run needed, from the JVM's garbage-collection notifications: the most heap
 * in use just before any collection (live data and garbage: what the heap had to hold) and the
 * most still in use just after one (the live data's high point, which does not depend on how
 * large the collector lets the young generation grow). Every runner compared runs inside the
 * launcher's JVM (embedded Spark, Flink's local cluster, the DirectRunner), so the JVM's heap is
 * the runner's. Watching costs nothing between collections.
 */
public final class HeapWatch implements AutoCloseable {
  private static final long MB = 1024 * 1024;

  private final Set<String> heapPools = new HashSet<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final AtomicLong peak = new AtomicLong();
  private final AtomicLong live = new AtomicLong(-1);
  private final NotificationListener listener = this::collected;
  /**
   * Per collector, how many collections it had done when the run began: notifications arrive
   * late, and earlier collections do not count.
   */
  private final Map<String, Long> doneAtStart = new java.util.concurrent.ConcurrentHashMap<>();

  public HeapWatch() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
  }

  /**
   * Starts watching a run, after a full collection (outside the run's time) so that garbage
   * left by earlier runs is not counted: what the heap holds then is its first peak.
   */
  public void start() {
    System.gc();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      doneAtStart.put(gc.getName(), gc.getCollectionCount());
    }
    peak.set(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    live.set(-1);
  }

  /** The run's peak heap in MB (in use before a collection, or now if more). */
  public long peakMb() {
    long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    return Math.max(peak.get(), now) / MB;
  }

  /** The run's most heap in use after a collection, in MB; -1 if none ran during it. */
  public long liveMb() {
    long bytes = live.get();
    return bytes < 0 ? -1 : bytes / MB;
  }

  private void collected(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    // A collection's id is its collector's count of collections, this one included.
    if (info.getGcInfo().getId() <= doneAtStart.getOrDefault(info.getGcName(), Long.MAX_VALUE)) {
      return;
    }
    long before = heapUsed(info.getGcInfo().getMemoryUsageBeforeGc());
    long after = heapUsed(info.getGcInfo().getMemoryUsageAfterGc());
    peak.accumulateAndGet(before, Math::max);
    live.accumulateAndGet(after, Math::max);
  }

  private long heapUsed(Map<String, MemoryUsage> byPool) {
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool : byPool.entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    return used;
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (javax.management.ListenerNotFoundException e) {
        // Not registered: nothing to remove.
      }
    }
  }
}
