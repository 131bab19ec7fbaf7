package dev.weir.nexmark.generator;

import java.util.Random;

/**
 * {@link Random}'s sequence without its thread safety: the 48-bit linear congruential generator
 * that {@code java.util.Random} specifies (multiplier 0x5DEECE66D, addend 0xB), kept in a plain
 * field. Every event draws from its own instance, on one thread, so {@code Random}'s
 * compare-and-set on an atomic seed at each draw is pure cost: with dozens of draws per event
 * it was a visible part of generating the stream. Only {@link #next} and {@link #setSeed} are
 * overridden; {@code Random} builds every other draw (bounded ints, longs, doubles) from
 * {@code next}, so the values are the same as {@code new Random(seed)}'s.
 */
final class LcgRandom extends Random {
  private static final long MULTIPLIER = 0x5DEECE66DL;
  private static final long ADDEND = 0xBL;
  private static final long MASK = (1L << 48) - 1;

  private long seed;

  LcgRandom(long seed) {
    // Random's constructor calls setSeed for a subclass, which scrambles it as Random does.
    super(seed);
  }

  @Override
  public void setSeed(long seed) {
    this.seed = (seed ^ MULTIPLIER) & MASK;
  }

  @Override
  protected int next(int bits) {
    seed = (seed * MULTIPLIER + ADDEND) & MASK;
    return (int) (seed >>> (48 - bits));
  }
}
