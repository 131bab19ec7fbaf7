package dev.weir.encoders;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.junit.jupiter.api.Test;

/** A coder's bytes through streams of our own: Beam's encoding, whatever the sizes before. */
class CoderBytesTest {
  @Test
  void encodesAsBeamDoesWhateverTheSizesBefore() throws Exception {
    CoderBytes<String> bytes = CoderBytes.of(StringUtf8Coder.of());
    CoderCodec<String> codec = new CoderCodec<>(StringUtf8Coder.of());
    // Around the first buffer's bounds, a value far over the largest first buffer, then small again.
    for (int length : new int[] {0, 5, 30, 31, 32, 33, 100_000, 3, 4095, 4096, 5000, 1}) {
      char[] chars = new char[length];
      Arrays.fill(chars, 'x');
      String value = new String(chars);
      byte[] expected = CoderUtils.encodeToByteArray(StringUtf8Coder.of(), value);
      assertThat("length " + length, bytes.encode(value), equalTo(expected));
      assertThat("length " + length, bytes.decode(expected), equalTo(value));
      assertThat("length " + length, codec.encode(value), equalTo(expected));
      assertThat("length " + length, codec.decode(expected), equalTo(value));
    }
  }

  @Test
  void nestedCodersReadTheirOwnBytesByteByByteAndInBlocks() throws Exception {
    // Var-length longs are read a byte at a time, strings in blocks, the iterable's count first.
    KvCoder<Long, Iterable<String>> coder = KvCoder.of(VarLongCoder.of(), IterableCoder.of(StringUtf8Coder.of()));
    KV<Long, Iterable<String>> value = KV.of(-300L, List.of("", "a", "bé", "x".repeat(70_000)));
    byte[] expected = CoderUtils.encodeToByteArray(coder, value);
    CoderBytes<KV<Long, Iterable<String>>> bytes = CoderBytes.of(coder);
    assertThat(bytes.encode(value), equalTo(expected));
    KV<Long, Iterable<String>> decoded = bytes.decode(expected);
    assertThat(decoded.getKey(), equalTo(-300L));
    assertThat(decoded.getValue(), equalTo(value.getValue()));
  }

  @Test
  void bytesLeftUnreadAreNotTheCodersEncoding() throws Exception {
    // A variable-length long reads only its own bytes, even as the whole array.
    byte[] encoded = CoderUtils.encodeToByteArray(VarLongCoder.of(), 300L);
    byte[] longer = Arrays.copyOf(encoded, encoded.length + 1);
    CoderException e = assertThrows(CoderException.class, () -> CoderBytes.of(VarLongCoder.of()).decode(longer));
    assertThat(e.getMessage(), containsString("left 1 of 3 bytes unread"));
    IllegalStateException inCodec =
        assertThrows(IllegalStateException.class, () -> new CoderCodec<>(VarLongCoder.of()).decode(longer));
    assertThat(inCodec.getMessage(), containsString("left 1 of 3 bytes unread"));
  }

  @Test
  void bytesCutShortAreAnError() throws Exception {
    byte[] encoded = CoderUtils.encodeToByteArray(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()), KV.of("key", 1L));
    byte[] cut = Arrays.copyOf(encoded, encoded.length - 1);
    assertThrows(CoderException.class, () -> CoderBytes.of(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of())).decode(cut));
  }
}
