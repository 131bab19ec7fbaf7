package dev.weir.translation.streaming.state;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The memo gives Beam's own string key for whatever namespace is asked, in any order. */
class NamespaceKeyMemoTest {
  private static StateNamespace window(long start) {
    return StateNamespaces.window(IntervalWindow.getCoder(), new IntervalWindow(new Instant(start), new Instant(start + 10)));
  }

  @Test
  void eachNamespaceGetsBeamsStringKey() {
    NamespaceKeyMemo memo = new NamespaceKeyMemo();
    // Repeats, equal namespaces that are other objects, other windows, the global and a
    // window-and-trigger namespace of the same window.
    List<StateNamespace> asked = List.of(
        window(0), window(0), window(2), window(0), StateNamespaces.global(), window(2),
        StateNamespaces.windowAndTrigger(IntervalWindow.getCoder(), new IntervalWindow(new Instant(2), new Instant(12)), 1),
        window(2), window(4));
    for (StateNamespace namespace : asked) {
      assertThat(namespace.toString(), memo.of(namespace), equalTo(namespace.stringKey()));
    }
    // More windows than it remembers, round and round, and again after it was cleared.
    for (int round = 0; round < 3; round++) {
      for (long start = 0; start < 24; start += 2) {
        assertThat(memo.of(window(start)), equalTo(window(start).stringKey()));
      }
      memo.clear();
    }
  }
}
