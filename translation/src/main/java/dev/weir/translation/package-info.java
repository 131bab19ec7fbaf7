/**
 * How WeirRunner turns an expanded Beam pipeline into Spark work: the visitor
 * ({@link dev.weir.translation.PipelineTranslator}), what a mode's translator registry answers,
 * and what batch and streaming share (the translation context, side inputs, time policies). It
 * names no class of either mode: {@code batch} and {@code streaming} depend on it, not the
 * reverse.
 * Runner internals: not an API for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation;

import org.apache.beam.sdk.annotations.Internal;
