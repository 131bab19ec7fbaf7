package dev.weir.translation;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag$;

/**
 * Chunks of elements as Spark keeps them: objects in memory, and the coder's bytes through
 * Spark's Java serializer, the path of a block spilled to disk or fetched by another executor.
 */
class ElementChunkTest {
  /** Not Java-serializable: only its coder can write it. */
  static final class Word {
    final String text;

    Word(String text) {
      this.text = text;
    }
  }

  static final class WordCoder extends AtomicCoder<Word> {
    @Override
    public void encode(Word value, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(value.text, out);
    }

    @Override
    public Word decode(InputStream in) throws IOException {
      return new Word(StringUtf8Coder.of().decode(in));
    }
  }

  private static List<ElementChunk<Word>> chunks(int words) throws Exception {
    Iterator<Word> input = IntStream.range(0, words).mapToObj(i -> new Word("w" + i)).iterator();
    List<ElementChunk<Word>> out = new ArrayList<>();
    ElementChunk.chunks(new WordCoder()).call(input).forEachRemaining(out::add);
    return out;
  }

  private static List<String> texts(List<ElementChunk<Word>> chunks) throws Exception {
    List<String> out = new ArrayList<>();
    for (ElementChunk<Word> chunk : chunks) {
      ElementChunk.<Word>elements().call(chunk).forEachRemaining(w -> out.add(w.text));
    }
    return out;
  }

  @Test
  void aPartitionIsCutIntoChunksInOrder() throws Exception {
    List<ElementChunk<Word>> chunks = chunks(2 * ElementChunk.SIZE + 5);
    assertThat(chunks.stream().map(ElementChunk::size).toList(), contains(ElementChunk.SIZE, ElementChunk.SIZE, 5));
    List<String> texts = texts(chunks);
    assertThat(texts.size(), equalTo(2 * ElementChunk.SIZE + 5));
    assertThat(texts.get(0), equalTo("w0"));
    assertThat(texts.get(2 * ElementChunk.SIZE + 4), equalTo("w" + (2 * ElementChunk.SIZE + 4)));
    assertThat(chunks(0).isEmpty(), is(true));
  }

  @Test
  void sparksJavaSerializerWritesTheElementsThroughTheirCoder() throws Exception {
    List<ElementChunk<Word>> chunks = chunks(ElementChunk.SIZE + 3);
    SerializerInstance serializer = new JavaSerializer(new SparkConf()).newInstance();
    List<ElementChunk<Word>> back = new ArrayList<>();
    for (ElementChunk<Word> chunk : chunks) {
      ByteBuffer bytes = serializer.serialize(chunk, ClassTag$.MODULE$.apply(ElementChunk.class));
      back.add(serializer.deserialize(bytes, ClassTag$.MODULE$.apply(ElementChunk.class)));
    }
    assertThat(texts(back), equalTo(texts(chunks)));
  }

  @Test
  void aChunkSaysItsSizeFromItsElementsEncoding() throws Exception {
    ElementChunk<Word> small = chunks(10).get(0);
    ElementChunk<Word> large = chunks(1000).get(0);
    // Each word encodes to at least 3 bytes: its length and "w" and a digit.
    assertThat(small.estimatedSize(), greaterThan(10L * 3));
    assertThat(large.estimatedSize(), greaterThan(50 * small.estimatedSize()));
  }

  @Test
  void onlySparksJavaSerializerIsUsable() {
    assertThat(ElementChunk.usable(new SparkConf()), is(true));
    assertThat(ElementChunk.usable(new SparkConf().set("spark.serializer", JavaSerializer.class.getName())), is(true));
    assertThat(ElementChunk.usable(new SparkConf().set("spark.serializer", KryoSerializer.class.getName())), is(false));
  }
}
