package dev.weir.translation.streaming.state;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How one partition's keyed state is laid out in its RocksDB instance: one keyspace, each record's
 * first byte saying what it is.
 *
 * A key appears in its records in its stored form ({@link #storedKey}).
 *
 * <ul>
 *   <li>{@link #META} + key: the key's full encoding if it is stored as a digest, the times it is
 *       indexed under, whether it has state and its cells' earliest hold (so that a key whose epoch
 *       deleted nothing needs no scan to tell), its clocks and pending timers ({@link
 *       RocksDbPartition});
 *   <li>{@link #CELL} + cell prefix + suffix: a state cell's contents, one record per value or
 *       accumulator, per bag or ordered list element (suffix: sequence number, or timestamp and
 *       sequence number), per set element or map entry (suffix: its Beam-encoded key);
 *   <li>{@link #HOLD} + cell prefix: a watermark hold, apart from the other cells so that a key's
 *       earliest hold is read without reading its other state;
 *   <li>{@link #EVENT_TIMERS}, {@link #PROCESSING_TIMERS}, {@link #HOLDS} + time + key: the
 *       partition's indexes, in time order, of each key's next timer and its hold;
 *   <li>{@link #INFO} + name: the partition's counters.
 * </ul>
 *
 * A cell prefix is the key, the state namespace and the tag id, each preceded by its length,
 * so that no cell's prefix is the start of another's. Times are big-endian with the sign bit
 * flipped, so that byte order is time order.
 */
final class RocksDbKeys {
  static final byte INFO = 0;
  static final byte META = 1;
  static final byte CELL = 2;
  static final byte HOLD = 3;
  static final byte EVENT_TIMERS = 4;
  static final byte PROCESSING_TIMERS = 5;
  static final byte HOLDS = 6;

  /** Keys up to this long are stored as they are; longer ones by their SHA-256 digest. */
  static final int MAX_INLINE_KEY = 64;
  private static final byte INLINE = 0;
  private static final byte DIGEST = 1;

  private RocksDbKeys() {}

  /**
   * How a Beam key's encoding appears in the records: itself (after a 0 byte) up to {@link
   * #MAX_INLINE_KEY} bytes, else its SHA-256 digest (after a 1 byte), the full key then in its
   * meta record only. Every record of a key holds its stored form, and Beam allows keys of
   * hundreds of megabytes.
   */
  static byte[] storedKey(byte[] key) {
    if (key.length <= MAX_INLINE_KEY) {
      byte[] out = new byte[key.length + 1];
      out[0] = INLINE;
      System.arraycopy(key, 0, out, 1, key.length);
      return out;
    }
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(key);
      byte[] out = new byte[digest.length + 1];
      out[0] = DIGEST;
      System.arraycopy(digest, 0, out, 1, digest.length);
      return out;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean isDigest(byte[] stored) {
    return stored[0] == DIGEST;
  }

  static byte[] inlineKey(byte[] stored) {
    return Arrays.copyOfRange(stored, 1, stored.length);
  }

  /** The full key at the start of a meta record: there for a digest, the stored form itself otherwise. */
  static byte[] readFullKey(java.io.DataInputStream meta, byte[] stored) throws java.io.IOException {
    if (!isDigest(stored)) {
      return inlineKey(stored);
    }
    byte[] full = new byte[meta.readInt()];
    meta.readFully(full);
    return full;
  }

  static byte[] info(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[1 + bytes.length];
    out[0] = INFO;
    System.arraycopy(bytes, 0, out, 1, bytes.length);
    return out;
  }

  static byte[] meta(byte[] key) {
    return concat(new byte[] {META}, key);
  }

  /** A key's cells of {@code kind} ({@link #CELL} or {@link #HOLD}): the prefix of all of them. */
  static byte[] keyPrefix(byte kind, byte[] key) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(key.length + 5);
    out.write(kind);
    writeSized(out, key);
    return out.toByteArray();
  }

  /** The prefix of one cell's records. */
  static byte[] cellPrefix(byte kind, byte[] key, String namespace, String tag) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(key.length + namespace.length() + tag.length() + 13);
    out.write(kind);
    writeSized(out, key);
    writeSized(out, namespace.getBytes(StandardCharsets.UTF_8));
    writeSized(out, tag.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** An index entry: {@code index} ({@link #EVENT_TIMERS}, ...), then the time, then the key. */
  static byte[] indexEntry(byte index, long time, byte[] key) {
    byte[] out = new byte[9 + key.length];
    out[0] = index;
    putTime(out, 1, time);
    System.arraycopy(key, 0, out, 9, key.length);
    return out;
  }

  static long indexTime(byte[] entry) {
    return getTime(entry, 1);
  }

  static byte[] indexKey(byte[] entry) {
    return Arrays.copyOfRange(entry, 9, entry.length);
  }

  static void putTime(byte[] into, int at, long time) {
    putLong(into, at, time ^ Long.MIN_VALUE);
  }

  static long getTime(byte[] from, int at) {
    return getLong(from, at) ^ Long.MIN_VALUE;
  }

  static void putLong(byte[] into, int at, long value) {
    for (int i = 7; i >= 0; i--) {
      into[at + i] = (byte) value;
      value >>>= 8;
    }
  }

  static long getLong(byte[] from, int at) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (from[at + i] & 0xff);
    }
    return value;
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** {@code prefix} followed by a big-endian long. */
  static byte[] withLong(byte[] prefix, long value) {
    byte[] out = Arrays.copyOf(prefix, prefix.length + 8);
    putLong(out, prefix.length, value);
    return out;
  }

  /** {@code prefix} followed by {@code bytes} preceded by their length. */
  static byte[] withSized(byte[] prefix, byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + bytes.length + 4);
    out.writeBytes(prefix);
    writeSized(out, bytes);
    return out.toByteArray();
  }

  /**
   * The first byte string after every one that starts with {@code prefix}: the exclusive upper
   * bound of a prefix scan, or null if there is none (a prefix of only 0xff bytes).
   */
  static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }

  static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static void writeSized(ByteArrayOutputStream out, byte[] bytes) {
    out.write(bytes.length >>> 24);
    out.write(bytes.length >>> 16);
    out.write(bytes.length >>> 8);
    out.write(bytes.length);
    out.writeBytes(bytes);
  }
}
