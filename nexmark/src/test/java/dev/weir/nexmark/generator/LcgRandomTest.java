package dev.weir.nexmark.generator;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The generator's unsynchronized random draws are java.util.Random's, draw for draw. */
class LcgRandomTest {
  @Test
  void drawsTheSameAsJavaUtilRandomForTheSameSeed() {
    long[] seeds = {0, 1, -1, 1000, 1002, 123_456_789_012L, Long.MAX_VALUE, Long.MIN_VALUE, 0x5DEECE66DL};
    int[] bounds = {1, 2, 7, 13, 26, 64, 10_000, 1 << 30, Integer.MAX_VALUE};
    for (long seed : seeds) {
      Random expected = new Random(seed);
      Random actual = new LcgRandom(seed);
      for (int round = 0; round < 200; round++) {
        String at = "seed " + seed + ", round " + round;
        assertThat(at + ", nextInt()", actual.nextInt(), equalTo(expected.nextInt()));
        for (int bound : bounds) {
          assertThat(at + ", nextInt(" + bound + ")", actual.nextInt(bound), equalTo(expected.nextInt(bound)));
        }
        assertThat(at + ", nextLong()", actual.nextLong(), equalTo(expected.nextLong()));
        assertThat(at + ", nextDouble()", actual.nextDouble(), equalTo(expected.nextDouble()));
        assertThat(at + ", nextBoolean()", actual.nextBoolean(), equalTo(expected.nextBoolean()));
      }
    }
  }
}
