package dev.weir.translation;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.util.KnownSizeEstimation;

/**
 * A run of elements that Spark keeps as objects while it holds them in memory, and writes in
 * their Beam coder's bytes whenever it serializes them: a persisted block that spills to disk or
 * that another executor fetches. An RDD persisted as chunks costs no encoding where its readers
 * run on the executor that computed it, which Spark's locality prefers, and its elements need not
 * be Java-serializable anywhere. Persisting the elements' bytes instead encodes every element once
 * and decodes it once per reader: for a stateless step after an unbounded read, that was more than
 * half of a streaming epoch's work (Nexmark q2).
 *
 * <p>Spark calls {@link #writeObject} and {@link #readObject} through its Java serializer, its
 * default and the one Weir leaves in place. Another serializer (Kryo) would write the fields
 * and skip the elements, so {@link #usable} says whether a session's serializer is Java's; where
 * it is not, callers persist bytes as before.
 *
 * <p>Readers share the chunk's element objects, as Beam's model allows: a transform must not
 * change its input.
 *
 * <p>A chunk tells Spark its size ({@link KnownSizeEstimation}) rather than letting Spark's
 * {@code SizeEstimator} walk its object graph: that walk, repeated as a block grows, took four
 * times longer than the epoch's work (Nexmark q2 ran 4x slower with it).
 */
public final class ElementChunk<T> implements Serializable, KnownSizeEstimation {
  private static final long serialVersionUID = 1L;
  /** Elements whose encoding is measured for a chunk's size. */
  private static final int SAMPLES = 4;
  /**
   * Heap bytes per encoded byte of an element: objects, headers and references take more than
   * the element's bytes (a string's characters are about the same, a long is 8 bytes of object
   * for a varint's 1 to 9, a timestamp 24 for 8). An estimate for Spark's memory accounting that
   * errs large.
   */
  private static final int HEAP_PER_BYTE = 3;
  /** Heap bytes per element besides its encoding's share: the window, pane and wrapper objects. */
  private static final int HEAP_PER_ELEMENT = 64;
  /**
   * Elements per chunk: enough that Spark's bookkeeping per value of a block (a chunk is one) is
   * small beside the elements, few enough that one chunk is a small share of a block.
   */
  static final int SIZE = 1024;

  private final Coder<T> coder;
  private transient List<T> elements;
  private transient long estimatedSize = -1;

  private ElementChunk(Coder<T> coder, List<T> elements) {
    this.coder = coder;
    this.elements = elements;
  }

  /** Whether Spark's serializer in {@code conf} writes chunks through their coder. */
  public static boolean usable(SparkConf conf) {
    return conf.get("spark.serializer", JavaSerializer.class.getName()).equals(JavaSerializer.class.getName());
  }

  /** A partition's elements, {@value #SIZE} to a chunk, gathered as the chunks are pulled. */
  public static <T> FlatMapFunction<Iterator<T>, ElementChunk<T>> chunks(Coder<T> coder) {
    return elements -> new Iterator<>() {
      @Override
      public boolean hasNext() {
        return elements.hasNext();
      }

      @Override
      public ElementChunk<T> next() {
        if (!elements.hasNext()) {
          throw new NoSuchElementException();
        }
        List<T> chunk = new ArrayList<>(SIZE);
        while (chunk.size() < SIZE && elements.hasNext()) {
          chunk.add(elements.next());
        }
        return new ElementChunk<>(coder, chunk);
      }
    };
  }

  /** The elements of each chunk, in order. */
  public static <T> FlatMapFunction<ElementChunk<T>, T> elements() {
    return chunk -> chunk.elements.iterator();
  }

  int size() {
    return elements.size();
  }

  /**
   * An estimate of the chunk's heap bytes from the encoded size of a few of its elements, spread
   * over the chunk.
   */
  @Override
  public long estimatedSize() {
    if (estimatedSize < 0) {
      int n = elements.size();
      ByteCount count = new ByteCount();
      int sampled = 0;
      for (int i = 0; i < n; i += Math.max(1, n / SAMPLES)) {
        try {
          coder.encode(elements.get(i), count);
        } catch (IOException e) {
          throw new IllegalStateException("Coder " + coder + " could not encode an element", e);
        }
        sampled++;
      }
      long perElement = sampled == 0 ? 0 : count.bytes / sampled;
      estimatedSize = 64 + 16 + 4L * n + n * (HEAP_PER_BYTE * perElement + HEAP_PER_ELEMENT);
    }
    return estimatedSize;
  }

  /** Counts what a coder writes, and keeps none of it. */
  private static final class ByteCount extends OutputStream {
    long bytes;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
    }
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    out.writeInt(elements.size());
    for (T element : elements) {
      // Beam's nested encoding: each element knows where it ends in the shared stream.
      coder.encode(element, out);
    }
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    int size = in.readInt();
    elements = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      elements.add(coder.decode(in));
    }
  }
}
