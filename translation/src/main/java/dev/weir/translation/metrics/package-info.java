/**
 * Beam metrics gathered from Spark tasks, attempted and committed. Runner internals: not an API
 * for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation.metrics;

import org.apache.beam.sdk.annotations.Internal;
