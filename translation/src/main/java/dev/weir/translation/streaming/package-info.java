/**
 * The streaming engine: the epoch loop, watermarks per step, the streaming translators and the
 * checkpoint dir. Runner internals: not an API for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation.streaming;

import org.apache.beam.sdk.annotations.Internal;
