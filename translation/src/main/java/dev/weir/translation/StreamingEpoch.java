package dev.weir.translation;

import java.util.List;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * What a translation that is one epoch of a streaming run asks of that run. The streaming package
 * implements it ({@code streaming.StreamingRun}); this package knows no more of streaming, so the
 * dependency goes one way: streaming's translators and epoch loop use {@link TranslationContext},
 * never the reverse.
 */
public interface StreamingEpoch {
  /** The run's id, unique per run: executors keep the run's readers, state and DoFns under it. */
  String runId();

  /**
   * Side input {@code view}, read from {@code pc}, as it stands in this epoch: Beam-encoded
   * elements, one window each.
   */
  List<byte[]> sideInputContents(TranslationContext context, PCollectionView<?> view, PCollection<?> pc);
}
