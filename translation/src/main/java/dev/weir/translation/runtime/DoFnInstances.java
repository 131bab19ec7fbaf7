package dev.weir.translation.runtime;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnInvoker;
import org.apache.beam.sdk.transforms.reflect.DoFnInvokers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DoFn instances a streaming run keeps in this JVM between bundles, per step: Beam lets a
 * runner use one instance for many bundles, one bundle at a time, so {@code @Setup} (a
 * connection, a model loaded) runs once per instance rather than once per epoch and partition.
 * A bundle takes an idle instance or sets up a new one; one that succeeded gives it back; one
 * that failed or ended early tears it down. {@code @Teardown} of the idle ones runs when the run
 * ends ({@link #closeRun}, from the run's cleanup on each executor it used), once an instance has
 * been idle for {@link #IDLE_EVICTION_MILLIS} (an executor the cleanup did not reach), or when the
 * JVM exits. Teardowns outside a bundle report no metrics: Beam does not promise them either.
 */
public final class DoFnInstances {
  private static final Logger LOG = LoggerFactory.getLogger(DoFnInstances.class);
  /** How long an instance may stay idle before it is torn down. */
  static final long IDLE_EVICTION_MILLIS = 10 * 60_000L;

  /** A set-up DoFn and its invoker. */
  static final class Instance {
    final DoFn<Object, Object> fn;
    final DoFnInvoker<Object, Object> invoker;
    long idleSince;

    Instance(DoFn<Object, Object> fn, DoFnInvoker<Object, Object> invoker) {
      this.fn = fn;
      this.invoker = invoker;
    }
  }

  private record Key(String runId, String stepName) {}

  private static final Map<Key, ConcurrentLinkedDeque<Instance>> IDLE = new ConcurrentHashMap<>();
  private static final AtomicLong LAST_EVICTION = new AtomicLong(System.currentTimeMillis());

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> IDLE.keySet().forEach(k -> tearDownAll(IDLE.remove(k), k)), "weir-dofn-teardown"));
  }

  private DoFnInstances() {}

  /** An idle instance of {@code spec}'s step, or a new one, set up (the caller's metrics scope). */
  static Instance acquire(DoFnSpec spec) {
    evictIdle(System.currentTimeMillis());
    if (spec.reusedWithin != null) {
      ConcurrentLinkedDeque<Instance> idle = IDLE.get(new Key(spec.reusedWithin, spec.stepName));
      Instance instance = idle == null ? null : idle.pollFirst();
      if (instance != null) {
        return instance;
      }
    }
    DoFn<Object, Object> fn = spec.newFn();
    return new Instance(fn, DoFnInvokers.tryInvokeSetupFor(fn, spec.options.get()));
  }

  /** After a bundle that succeeded: the instance waits for the step's next bundle. */
  static void release(DoFnSpec spec, Instance instance) {
    if (spec.reusedWithin == null) {
      tearDown(instance, spec.stepName);
      return;
    }
    instance.idleSince = System.currentTimeMillis();
    IDLE.computeIfAbsent(new Key(spec.reusedWithin, spec.stepName), k -> new ConcurrentLinkedDeque<>()).addFirst(instance);
  }

  /** Tears down every idle instance of run {@code runId}'s steps in this JVM. */
  public static void closeRun(String runId) {
    for (Key key : IDLE.keySet()) {
      if (key.runId().equals(runId)) {
        tearDownAll(IDLE.remove(key), key);
      }
    }
  }

  /** At most once a minute: tears down the instances idle for longer than the eviction time. */
  private static void evictIdle(long now) {
    long last = LAST_EVICTION.get();
    if (now - last < 60_000L || !LAST_EVICTION.compareAndSet(last, now)) {
      return;
    }
    for (Map.Entry<Key, ConcurrentLinkedDeque<Instance>> e : IDLE.entrySet()) {
      for (Iterator<Instance> it = e.getValue().iterator(); it.hasNext(); ) {
        Instance instance = it.next();
        if (now - instance.idleSince >= IDLE_EVICTION_MILLIS && e.getValue().removeFirstOccurrence(instance)) {
          tearDown(instance, e.getKey().stepName());
        }
      }
    }
  }

  private static void tearDownAll(ConcurrentLinkedDeque<Instance> instances, Key key) {
    if (instances == null) {
      return;
    }
    for (Instance instance; (instance = instances.pollFirst()) != null; ) {
      tearDown(instance, key.stepName());
    }
  }

  /** {@code @Teardown}; a failure is logged: the instance is gone either way. */
  static void tearDown(Instance instance, String stepName) {
    try {
      instance.invoker.invokeTeardown();
    } catch (RuntimeException e) {
      LOG.warn("Teardown of a DoFn of step '{}' failed", stepName, e);
    }
  }
}
