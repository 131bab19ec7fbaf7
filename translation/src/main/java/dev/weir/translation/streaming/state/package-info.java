/**
 * Keyed state and timers of streaming steps behind a {@link
 * dev.weir.translation.streaming.state.StateBackend}: in the heap or in RocksDB, with their
 * checkpoints. Runner internals: not an API for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation.streaming.state;

import org.apache.beam.sdk.annotations.Internal;
