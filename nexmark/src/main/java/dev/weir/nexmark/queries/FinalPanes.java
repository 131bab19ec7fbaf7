package dev.weir.nexmark.queries;

import org.apache.beam.sdk.transforms.DoFn;

/** Keeps the elements of final panes only (see {@link NexmarkQuery#checked}). */
public final class FinalPanes<T> extends DoFn<T, T> {
  @ProcessElement
  public void process(ProcessContext c) {
    if (c.pane().isLast()) {
      c.output(c.element());
    }
  }
}
