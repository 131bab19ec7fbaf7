package dev.weir.translation.streaming;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.StateInternals;
import org.apache.beam.runners.core.StateNamespace;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.sdk.state.State;
import org.apache.beam.sdk.state.StateContext;
import org.apache.beam.sdk.state.WatermarkHoldState;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One key's state for as long as a streaming run lasts, in Beam's in-memory state cells. Unlike
 * {@link InMemoryStateInternals} it can forget cleared cells ({@link #compact}), so a key that
 * lives through many windows keeps only its open ones, and it can say the earliest watermark hold
 * among its cells ({@link #earliestHold}).
 */
final class KeyStateInternals implements StateInternals {
  private final Object key;
  private final Map<String, Map<String, State>> cells = new HashMap<>();

  KeyStateInternals(Object key) {
    this.key = key;
  }

  @Override
  public Object getKey() {
    return key;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends State> T state(StateNamespace namespace, StateTag<T> address, StateContext<?> c) {
    Map<String, State> byTag = cells.computeIfAbsent(namespace.stringKey(), k -> new HashMap<>());
    State cell = byTag.get(address.getId());
    if (cell == null) {
      cell = address.bind(new InMemoryStateInternals.InMemoryStateBinder(c));
      byTag.put(address.getId(), cell);
    }
    return (T) cell;
  }

  /** Drops cells that hold nothing: reading them again gives a fresh, equally empty cell. */
  void compact() {
    Iterator<Map<String, State>> namespaces = cells.values().iterator();
    while (namespaces.hasNext()) {
      Map<String, State> byTag = namespaces.next();
      byTag.values().removeIf(cell -> ((InMemoryStateInternals.InMemoryState<?>) cell).isCleared());
      if (byTag.isEmpty()) {
        namespaces.remove();
      }
    }
  }

  boolean isEmpty() {
    return cells.isEmpty();
  }

  /** The earliest watermark hold of this key, or {@code null} if it holds nothing back. */
  @Nullable
  Instant earliestHold() {
    Instant earliest = null;
    for (Map<String, State> byTag : cells.values()) {
      for (State cell : byTag.values()) {
        if (cell instanceof WatermarkHoldState) {
          Instant hold = ((WatermarkHoldState) cell).read();
          if (hold != null && (earliest == null || hold.isBefore(earliest))) {
            earliest = hold;
          }
        }
      }
    }
    return earliest;
  }
}
