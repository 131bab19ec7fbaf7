package dev.weir.translation.streaming;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import scala.Tuple2;

/**
 * A keyed partition's input of one epoch, a key at a time: each key with its elements, in the
 * order they came. Input sorted by key ({@link KeyedShuffle#byKey} with {@code sortByKey}, for a
 * state backend that keeps keys out of the heap) is grouped as it streams past, so that only one
 * key's elements are held at a time; other input is gathered whole first.
 */
final class KeyGroups implements Iterator<KeyGroups.Group> {
  /** One key's encoding and its elements' encodings. */
  record Group(ByteBuffer key, List<byte[]> elements) {}

  private final Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input;
  private Tuple2<byte[], byte[]> pending;

  private KeyGroups(Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input) {
    this.input = input;
  }

  static Iterator<Group> of(Iterator<Tuple2<Integer, Tuple2<byte[], byte[]>>> input, boolean sortedByKey) {
    if (sortedByKey) {
      return new KeyGroups(input);
    }
    Map<ByteBuffer, List<byte[]>> byKey = new LinkedHashMap<>();
    while (input.hasNext()) {
      Tuple2<byte[], byte[]> element = input.next()._2();
      byKey.computeIfAbsent(ByteBuffer.wrap(element._1()), k -> new ArrayList<>()).add(element._2());
    }
    return byKey.entrySet().stream().map(e -> new Group(e.getKey(), e.getValue())).iterator();
  }

  @Override
  public boolean hasNext() {
    return pending != null || input.hasNext();
  }

  @Override
  public Group next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Tuple2<byte[], byte[]> first = pending != null ? pending : input.next()._2();
    pending = null;
    List<byte[]> elements = new ArrayList<>();
    elements.add(first._2());
    while (input.hasNext()) {
      Tuple2<byte[], byte[]> element = input.next()._2();
      if (!Arrays.equals(element._1(), first._1())) {
        pending = element;
        break;
      }
      elements.add(element._2());
    }
    return new Group(ByteBuffer.wrap(first._1()), elements);
  }
}
