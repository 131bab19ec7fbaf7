package dev.weir.translation.streaming.state;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
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
 * lives through many windows keeps only its open ones; it can say the earliest watermark hold
 * among its cells ({@link #earliestHold}); and it can write its cells to a checkpoint and read
 * them back ({@link #writeTo}, {@link #readFrom}). Cells read back stay bytes until the DoFn or
 * the runner asks for them by their tag: only then is the tag, and so the coder, known.
 */
final class KeyStateInternals implements KeyStateCells {
  private final Object key;
  private final Map<String, Map<String, StateCells.Cell>> cells = new HashMap<>();
  /** Cells read from a checkpoint and not asked for since: kind and bytes, by namespace and tag. */
  private final Map<String, Map<String, Blob>> restored = new HashMap<>();
  private final NamespaceKeyMemo namespaceKeys = new NamespaceKeyMemo();

  private record Blob(byte kind, byte[] bytes) {}

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
    String ns = namespaceKeys.of(namespace);
    Map<String, StateCells.Cell> byTag = cells.computeIfAbsent(ns, k -> new HashMap<>());
    StateCells.Cell cell = byTag.get(address.getId());
    if (cell == null) {
      cell = StateCells.bind(address, c);
      byTag.put(address.getId(), cell);
      Map<String, Blob> saved = restored.get(ns);
      Blob blob = saved == null ? null : saved.remove(address.getId());
      if (blob != null) {
        if (saved.isEmpty()) {
          restored.remove(ns);
        }
        try {
          cell.codec().decodeInto(cell.state(), blob.bytes());
        } catch (IOException e) {
          throw new IllegalStateException("Could not read state '" + address.getId() + "' of key " + key + " from its checkpoint", e);
        }
      }
    }
    return (T) cell.state();
  }

  /** Drops cells that hold nothing: reading them again gives a fresh, equally empty cell. */
  void compact() {
    namespaceKeys.clear();
    Iterator<Map<String, StateCells.Cell>> namespaces = cells.values().iterator();
    while (namespaces.hasNext()) {
      Map<String, StateCells.Cell> byTag = namespaces.next();
      byTag.values().removeIf(cell -> ((InMemoryStateInternals.InMemoryState<?>) cell.state()).isCleared());
      if (byTag.isEmpty()) {
        namespaces.remove();
      }
    }
  }

  @Override
  public boolean isEmpty() {
    return cells.isEmpty() && restored.isEmpty();
  }

  /** The earliest watermark hold of this key, or {@code null} if it holds nothing back. */
  @Nullable
  @Override
  public Instant earliestHold() {
    Instant earliest = null;
    for (Map<String, StateCells.Cell> byTag : cells.values()) {
      for (StateCells.Cell cell : byTag.values()) {
        if (cell.state() instanceof WatermarkHoldState) {
          earliest = earlier(earliest, ((WatermarkHoldState) cell.state()).read());
        }
      }
    }
    for (Map<String, Blob> byTag : restored.values()) {
      for (Blob blob : byTag.values()) {
        if (blob.kind() == StateCells.HOLD) {
          try {
            earliest = earlier(earliest, StateCells.holdOf(blob.bytes()));
          } catch (IOException e) {
            throw new IllegalStateException("Could not read a watermark hold of key " + key + " from its checkpoint", e);
          }
        }
      }
    }
    return earliest;
  }

  private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
    return a == null || (b != null && b.isBefore(a)) ? b : a;
  }

  /** Writes every cell (compact first: cleared cells would be written empty). */
  void writeTo(DataOutputStream out) throws IOException {
    int count = 0;
    for (Map<String, StateCells.Cell> byTag : cells.values()) {
      count += byTag.size();
    }
    for (Map<String, Blob> byTag : restored.values()) {
      count += byTag.size();
    }
    out.writeInt(count);
    for (Map.Entry<String, Map<String, StateCells.Cell>> ns : cells.entrySet()) {
      for (Map.Entry<String, StateCells.Cell> tag : ns.getValue().entrySet()) {
        StateCells.Cell cell = tag.getValue();
        write(out, ns.getKey(), tag.getKey(), new Blob(cell.codec().kind(), cell.codec().encode(cell.state())));
      }
    }
    for (Map.Entry<String, Map<String, Blob>> ns : restored.entrySet()) {
      for (Map.Entry<String, Blob> tag : ns.getValue().entrySet()) {
        write(out, ns.getKey(), tag.getKey(), tag.getValue());
      }
    }
  }

  private static void write(DataOutputStream out, String namespace, String tag, Blob blob) throws IOException {
    out.writeUTF(namespace);
    out.writeUTF(tag);
    out.writeByte(blob.kind());
    out.writeInt(blob.bytes().length);
    out.write(blob.bytes());
  }

  /** Reads cells written by {@link #writeTo} into this (empty) key's state. */
  void readFrom(DataInputStream in) throws IOException {
    int count = in.readInt();
    for (int i = 0; i < count; i++) {
      String namespace = in.readUTF();
      String tag = in.readUTF();
      byte kind = in.readByte();
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      restored.computeIfAbsent(namespace, k -> new HashMap<>()).put(tag, new Blob(kind, bytes));
    }
  }
}
