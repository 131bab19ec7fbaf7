package dev.weir.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.beam.sdk.metrics.BoundedTrieResult;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.StringSetResult;

/**
 * The JSON body of {@link HttpJsonMetricsSink}, with Beam's field names:
 *
 * <pre>{@code
 * {"counters":[{"name":{"namespace":"ns","name":"n"},"step":"s","attempted":5,"committed":5}],
 *  "distributions":[{..., "attempted":{"count":2,"sum":7,"min":3,"max":4,"mean":3.5}, ...}],
 *  "gauges":[{..., "attempted":{"value":9,"timestamp":"2026-01-01T00:00:00.000Z"}, ...}],
 *  "stringSets":[{..., "attempted":{"values":["a","b"]}, ...}],
 *  "boundedTries":[{..., "attempted":{"paths":[["a","b"]]}, ...}]}
 * }</pre>
 *
 * A committed value the runner does not support is {@code null}. Entries are sorted by step,
 * namespace and name; string sets and tries are sorted too.
 */
final class JsonMetrics {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonMetrics() {}

  static String body(MetricQueryResults results) {
    ObjectNode root = MAPPER.createObjectNode();
    add(root.putArray("counters"), results.getCounters(), (node, v) -> node.put("value", v), true);
    add(root.putArray("distributions"), results.getDistributions(), JsonMetrics::distribution, false);
    add(root.putArray("gauges"), results.getGauges(), JsonMetrics::gauge, false);
    add(root.putArray("stringSets"), results.getStringSets(), JsonMetrics::stringSet, false);
    add(root.putArray("boundedTries"), results.getBoundedTries(), JsonMetrics::boundedTrie, false);
    return root.toString();
  }

  /** One entry per metric; {@code scalar} values are written inline, others as objects. */
  private static <T> void add(
      ArrayNode array, Iterable<MetricResult<T>> results, BiConsumer<ObjectNode, T> writer, boolean scalar) {
    for (MetricResult<T> r : results) {
      ObjectNode entry = array.addObject();
      ObjectNode name = entry.putObject("name");
      name.put("namespace", r.getName().getNamespace());
      name.put("name", r.getName().getName());
      entry.put("step", r.getKey().stepName());
      value(entry, "attempted", r.getAttempted(), writer, scalar);
      value(entry, "committed", MetricsSnapshot.committedOrNull(r), writer, scalar);
    }
  }

  private static <T> void value(ObjectNode entry, String field, T value, BiConsumer<ObjectNode, T> writer, boolean scalar) {
    if (value == null) {
      entry.putNull(field);
    } else if (scalar) {
      ObjectNode holder = MAPPER.createObjectNode();
      writer.accept(holder, value);
      entry.set(field, holder.get("value"));
    } else {
      writer.accept(entry.putObject(field), value);
    }
  }

  private static void distribution(ObjectNode node, DistributionResult d) {
    node.put("count", d.getCount());
    node.put("sum", d.getSum());
    node.put("min", d.getMin());
    node.put("max", d.getMax());
    node.put("mean", d.getMean());
  }

  private static void gauge(ObjectNode node, GaugeResult g) {
    node.put("value", g.getValue());
    node.put("timestamp", g.getTimestamp().toString());
  }

  private static void stringSet(ObjectNode node, StringSetResult s) {
    List<String> values = new ArrayList<>(s.getStringSet());
    values.sort(null);
    ArrayNode array = node.putArray("values");
    values.forEach(array::add);
  }

  private static void boundedTrie(ObjectNode node, BoundedTrieResult t) {
    List<List<String>> paths = new ArrayList<>(t.getResult());
    paths.sort((a, b) -> String.join("\u0000", a).compareTo(String.join("\u0000", b)));
    ArrayNode array = node.putArray("paths");
    for (List<String> path : paths) {
      ArrayNode p = array.addArray();
      path.forEach(p::add);
    }
  }
}
