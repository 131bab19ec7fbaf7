package dev.weir.nexmark.launcher;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import org.junit.jupiter.api.Test;

/** HeapWatch sees data a run keeps live, before and after a collection. */
class HeapWatchTest {
  private static final int MB = 1024 * 1024;

  @Test
  void dataKeptLiveThroughACollectionIsInThePeakAndTheLiveFigure() throws Exception {
    try (HeapWatch heap = new HeapWatch()) {
      heap.start();
      byte[][] kept = new byte[96][];
      for (int i = 0; i < kept.length; i++) {
        kept[i] = new byte[MB];
      }
      System.gc();
      // The collection's notification comes on another thread, a little later.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (heap.liveMb() < 96 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(heap.liveMb(), greaterThanOrEqualTo(96L));
      assertThat(heap.peakMb(), greaterThanOrEqualTo(96L));
      assertThat(kept[kept.length - 1].length, greaterThanOrEqualTo(MB));
    }
  }
}
