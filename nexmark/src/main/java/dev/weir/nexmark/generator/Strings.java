package dev.weir.nexmark.generator;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Random text of the stream: words with occasional spaces, and padding to average sizes. */
final class Strings {
  private static final int MIN_LENGTH = 3;

  private Strings() {}

  /** Between 3 and maxLength - 1 letters or spaces (one in 13), trimmed. */
  static String next(Random random, int maxLength) {
    int length = MIN_LENGTH + random.nextInt(maxLength - MIN_LENGTH);
    byte[] chars = new byte[length];
    for (int i = 0; i < length; i++) {
      chars[i] = random.nextInt(13) == 0 ? (byte) ' ' : (byte) ('a' + random.nextInt(26));
    }
    return latin1(chars).trim();
  }

  /**
   * Exactly {@code length} characters, six per random int. The int may be negative and Java's
   * remainder keeps its sign, so characters range from 'H' to 'z'.
   */
  static String nextExact(Random random, int length) {
    byte[] chars = new byte[length];
    int rnd = 0;
    int left = 0;
    for (int i = 0; i < length; i++) {
      if (left == 0) {
        rnd = random.nextInt();
        left = 6;
      }
      chars[i] = (byte) ('a' + rnd % 26);
      rnd /= 26;
      left--;
    }
    return latin1(chars);
  }

  /**
   * The text of single-byte characters: every character here is ASCII, so the bytes are the
   * string's own (a StringBuilder appending one char at a time cost more than the draws).
   */
  private static String latin1(byte[] chars) {
    return new String(chars, StandardCharsets.ISO_8859_1);
  }

  /** Padding that brings an object of {@code currentSize} bytes to {@code average} give or take 20%. */
  static String nextExtra(Random random, int currentSize, int average) {
    if (currentSize > average) {
      return "";
    }
    int wanted = average - currentSize;
    int delta = (int) Math.round(wanted * 0.2);
    int size = wanted - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
    return nextExact(random, size);
  }
}
