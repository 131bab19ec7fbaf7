package dev.weir.encoders;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

/** A coder's bytes through the codec's own buffer: Beam's encoding, whatever the sizes before. */
class CoderCodecTest {
  @Test
  void encodesAsBeamDoesWhateverTheSizesBefore() throws Exception {
    CoderCodec<String> codec = new CoderCodec<>(StringUtf8Coder.of());
    // Around the first buffer's bounds, a value far over the largest first buffer, then small again.
    for (int length : new int[] {0, 5, 30, 31, 32, 33, 100_000, 3, 4095, 4096, 5000, 1}) {
      char[] chars = new char[length];
      Arrays.fill(chars, 'x');
      String value = new String(chars);
      byte[] bytes = codec.encode(value);
      assertThat("length " + length, bytes, equalTo(CoderUtils.encodeToByteArray(StringUtf8Coder.of(), value)));
      assertThat("length " + length, codec.decode(bytes), equalTo(value));
    }
  }

  @Test
  void bytesLeftUnreadAreNotTheCodersEncoding() throws Exception {
    // A variable-length long reads only its own bytes, even as the whole array.
    CoderCodec<Long> codec = new CoderCodec<>(VarLongCoder.of());
    byte[] bytes = CoderUtils.encodeToByteArray(VarLongCoder.of(), 300L);
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> codec.decode(longer));
    assertThat(e.getMessage(), containsString("left 1 of 3 bytes unread"));
  }
}
