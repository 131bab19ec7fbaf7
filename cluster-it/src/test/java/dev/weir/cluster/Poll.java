package dev.weir.cluster;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Waiting on a condition with a deadline, polled every 20 ms. */
final class Poll {
  private Poll() {}

  /** A condition that may fail with a checked exception (a file read, a script run). */
  interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Returns once {@code condition} holds; fails at the deadline, or as soon as {@code stop} gives
   * a reason (say, the driver being waited on exited).
   */
  static void until(String what, Duration timeout, Condition condition, Supplier<String> stop) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      String reason = stop.get();
      if (reason != null) {
        throw new AssertionError("waiting for " + what + ": " + reason);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within " + timeout);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
