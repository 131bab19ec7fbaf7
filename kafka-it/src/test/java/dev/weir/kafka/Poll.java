package dev.weir.kafka;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting on a condition with a deadline, polled every 20 ms. */
final class Poll {
  private Poll() {}

  /**
   * Returns once {@code condition} holds; fails at the deadline, or as soon as {@code stop} gives
   * a reason (say, the pipeline being waited on ended).
   */
  static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> stop)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
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
