package dev.weir.translation.batch;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;

/**
 * Spark's serializer for a shuffle whose keys and values are byte arrays (Beam encodings): each
 * written as its length and its bytes. Spark's Java serializer wraps every record in an object
 * stream (class descriptors again every hundred records), which made an RDD shuffle of a million
 * Nexmark events slower than a Dataset's.
 */
final class ByteArraySerializer extends Serializer implements Serializable {
  private static final long serialVersionUID = 1L;

  @Override
  public SerializerInstance newInstance() {
    return new Instance();
  }

  /** Records are self-contained: Spark may reorder their bytes in a shuffle's map output. */
  @Override
  public boolean supportsRelocationOfSerializedObjects() {
    return true;
  }

  private static final class Instance extends SerializerInstance {
    @Override
    public <T> ByteBuffer serialize(T t, ClassTag<T> tag) {
      byte[] bytes = (byte[]) t;
      return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).flip();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T deserialize(ByteBuffer buffer, ClassTag<T> tag) {
      byte[] bytes = new byte[buffer.getInt()];
      buffer.get(bytes);
      return (T) bytes;
    }

    @Override
    public <T> T deserialize(ByteBuffer buffer, ClassLoader loader, ClassTag<T> tag) {
      return deserialize(buffer, tag);
    }

    @Override
    public SerializationStream serializeStream(OutputStream out) {
      DataOutputStream data = new DataOutputStream(out);
      return new SerializationStream() {
        @Override
        public <T> SerializationStream writeObject(T t, ClassTag<T> tag) {
          byte[] bytes = (byte[]) t;
          try {
            data.writeInt(bytes.length);
            data.write(bytes);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return this;
        }

        @Override
        public void flush() {
          unchecked(data::flush);
        }

        @Override
        public void close() {
          unchecked(data::close);
        }
      };
    }

    @Override
    public DeserializationStream deserializeStream(InputStream in) {
      DataInputStream data = new DataInputStream(in);
      return new DeserializationStream() {
        /** Spark reads until {@link EOFException}, which {@code readInt} throws at the end. */
        @Override
        @SuppressWarnings("unchecked")
        public <T> T readObject(ClassTag<T> tag) {
          try {
            byte[] bytes = new byte[data.readInt()];
            data.readFully(bytes);
            return (T) bytes;
          } catch (EOFException e) {
            throw sneaky(e);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }

        @Override
        public void close() {
          unchecked(data::close);
        }
      };
    }
  }

  /** A stream operation whose {@link IOException} Spark's callers, in Scala, do not declare. */
  private interface StreamWork {
    void run() throws IOException;
  }

  private static void unchecked(StreamWork work) {
    try {
      work.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Throws a checked exception unchecked: Spark's Scala callers catch {@link EOFException} itself. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
    throw (E) e;
  }
}
