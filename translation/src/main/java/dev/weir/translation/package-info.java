/**
 * How WeirRunner turns an expanded Beam pipeline into Spark work: the visitor
 * ({@link dev.weir.translation.PipelineTranslator}), the registry of one translator per transform,
 * and what batch and streaming share (the translation context, side inputs, time policies).
 * Runner internals: not an API for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation;

import org.apache.beam.sdk.annotations.Internal;
