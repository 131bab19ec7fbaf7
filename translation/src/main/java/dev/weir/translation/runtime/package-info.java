/**
 * What runs on executors in both modes: DoFn bundles and their instances, a key's step context,
 * the one timer driver, the map side of a Combine. Runner internals: not an API for pipelines, and
 * free to change between releases.
 */
@Internal
package dev.weir.translation.runtime;

import org.apache.beam.sdk.annotations.Internal;
