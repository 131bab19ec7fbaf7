package dev.weir.translation.streaming.state;

import org.apache.beam.runners.core.StateNamespace;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The string keys of the last few namespaces asked for. Beam's {@link StateNamespace#stringKey()}
 * encodes a window to Base64 on every call, and Beam's ReduceFnRunner goes over an element's
 * windows several times (is each closed, then its cells, holds and timers, window by window):
 * encoding each time was a third of a streaming GroupByKey's executor time on Nexmark q5, whose
 * elements are in five sliding windows each. One memo per key's state, whose namespaces share one
 * window coder, so that equal namespaces have equal keys; {@link #clear} when the key is put
 * away, so that keys at rest hold no memo.
 */
final class NamespaceKeyMemo {
  /** More than the windows an element is in for most window functions, few enough to scan. */
  private static final int SIZE = 8;

  private @Nullable StateNamespace[] namespaces;
  private @Nullable String[] keys;
  private int next;

  String of(StateNamespace asked) {
    if (namespaces == null) {
      namespaces = new StateNamespace[SIZE];
      keys = new String[SIZE];
    }
    for (int i = 0; i < SIZE; i++) {
      StateNamespace known = namespaces[i];
      if (known == null) {
        break;
      }
      if (known == asked || known.equals(asked)) {
        return keys[i];
      }
    }
    String key = asked.stringKey();
    namespaces[next] = asked;
    keys[next] = key;
    next = (next + 1) % SIZE;
    return key;
  }

  void clear() {
    namespaces = null;
    keys = null;
    next = 0;
  }
}
