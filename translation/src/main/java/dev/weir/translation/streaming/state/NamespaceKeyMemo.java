package dev.weir.translation.streaming.state;

import org.apache.beam.runners.core.StateNamespace;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The string key of the namespace asked for last. Beam's {@link StateNamespace#stringKey()}
 * encodes a window to Base64 on every call, and Beam's ReduceFnRunner reads several cells and
 * sets a timer in one window before it moves to the next: encoding each time was a third of a
 * streaming GroupByKey's executor time on Nexmark q5 (sliding windows). One memo per key's state,
 * whose namespaces share one window coder, so that equal namespaces have equal keys.
 */
final class NamespaceKeyMemo {
  private @Nullable StateNamespace namespace;
  private @Nullable String key;

  String of(StateNamespace asked) {
    if (asked != namespace && !asked.equals(namespace)) {
      key = asked.stringKey();
      namespace = asked;
    }
    return key;
  }
}
