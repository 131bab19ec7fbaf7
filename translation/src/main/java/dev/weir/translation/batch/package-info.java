/**
 * The batch translators: each transform onto Spark Datasets or RDDs, with a perfect watermark.
 * Runner internals: not an API for pipelines, and free to change between releases.
 */
@Internal
package dev.weir.translation.batch;

import org.apache.beam.sdk.annotations.Internal;
