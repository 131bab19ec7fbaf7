package dev.weir.translation.streaming;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * When a main-input element may read its side inputs in streaming, as Beam specifies for
 * triggered side inputs: once the side input's watermark passed the side window its window maps
 * to (the window is complete), or once a pane of that side window arrived.
 */
class SideInputsReadyTest {
  private static final FixedWindows TENS = FixedWindows.of(Duration.millis(10));

  /** One side input: its WindowFn, watermark and the side windows a pane arrived in. */
  private record Side(WindowFn<?, ?> windowFn, long watermark, Set<BoundedWindow> fired) {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean ready(BoundedWindow mainWindow, Side... sides) {
    List<WindowMappingFn<?>> mappings = new ArrayList<>();
    List<Long> watermarks = new ArrayList<>();
    List<Set<String>> fired = new ArrayList<>();
    List<Coder<BoundedWindow>> coders = new ArrayList<>();
    for (Side side : sides) {
      Coder<BoundedWindow> coder = (Coder) side.windowFn().windowCoder();
      mappings.add(side.windowFn().getDefaultWindowMappingFn());
      watermarks.add(side.watermark());
      Set<String> keys = new java.util.HashSet<>();
      for (BoundedWindow w : side.fired()) {
        keys.add(SideInputHistory.windowKey(coder, w));
      }
      fired.add(keys);
      coders.add(coder);
    }
    WindowedValue<Object> element = WindowedValues.of("main", mainWindow.maxTimestamp(), mainWindow, PaneInfo.NO_FIRING);
    return new ParDoStreamingTranslator.SideInputsReady(mappings, watermarks, fired, coders).call(element);
  }

  private static IntervalWindow window(long start) {
    return new IntervalWindow(new Instant(start), new Instant(start + 10));
  }

  @Test
  void aSideWindowIsCompleteOnceTheWatermarkIsPastItsLastTimestamp() {
    // [0, 10) ends at 9: a watermark of 9 may still see an element at 9.
    assertThat(ready(window(0), new Side(TENS, 9, Set.of())), is(false));
    assertThat(ready(window(0), new Side(TENS, 10, Set.of())), is(true));
  }

  @Test
  void aPaneOfTheSideWindowMakesItReadyBeforeItIsComplete() {
    assertThat(ready(window(0), new Side(TENS, 0, Set.of(window(0)))), is(true));
    // A pane of another window does not.
    assertThat(ready(window(0), new Side(TENS, 0, Set.of(window(10)))), is(false));
  }

  @Test
  void theMainWindowMapsToTheSideInputsWindow() {
    // A main window [20, 30) reads a global side input: ready only once the global window is.
    assertThat(ready(window(20), new Side(new GlobalWindows(), 1000, Set.of())), is(false));
    assertThat(ready(window(20), new Side(new GlobalWindows(), 1000, Set.of(GlobalWindow.INSTANCE))), is(true));
    // A side input in windows of 10 read from [20, 30) waits for its own [20, 30), not [0, 10).
    assertThat(ready(window(20), new Side(TENS, 0, Set.of(window(0)))), is(false));
  }

  @Test
  void everySideInputMustBeReady() {
    Side ready = new Side(TENS, 10, Set.of());
    Side notReady = new Side(TENS, 0, Set.of());
    assertThat(ready(window(0), ready, notReady), is(false));
    assertThat(ready(window(0), ready, ready), is(true));
  }
}
