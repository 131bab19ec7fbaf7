package dev.weir.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code --sparkConf} as Spark settings. Beam splits a list option's values on commas, so a value
 * with commas in it ({@code spark.jars=a.jar,b.jar}) reaches the runner in pieces; they are put
 * back together here. Two forms are taken, and can be repeated: {@code key=value} (several
 * separated by commas, or the option repeated) and Beam's JSON map form, {@code
 * --sparkConf={"spark.jars":"a.jar,b.jar"}}.
 */
final class SparkConfEntries {
  private static final Pattern KEY = Pattern.compile("spark\\.[^=\\s]+=.*", Pattern.DOTALL);
  private static final ObjectMapper JSON = new ObjectMapper();

  private SparkConfEntries() {}

  /**
   * The settings, by key.
   *
   * @throws IllegalArgumentException naming the malformed entry
   */
  static Map<String, String> parse(List<String> pieces) {
    Map<String, String> conf = new TreeMap<>();
    StringBuilder entry = null;
    boolean json = false;
    for (String piece : pieces) {
      if (entry != null && json) {
        entry.append(',').append(piece);
        if (completeJson(entry.toString())) {
          putJson(entry.toString(), conf);
          entry = null;
        }
        continue;
      }
      if (piece.startsWith("{")) {
        flush(entry, conf);
        entry = new StringBuilder(piece);
        json = true;
        if (completeJson(piece)) {
          putJson(piece, conf);
          entry = null;
        }
      } else if (KEY.matcher(piece).matches()) {
        flush(entry, conf);
        entry = new StringBuilder(piece);
        json = false;
      } else if (entry != null) {
        // A comma inside the previous entry's value: Beam split it there.
        entry.append(',').append(piece);
      } else {
        throw malformed(piece);
      }
    }
    if (entry != null && json) {
      throw new IllegalArgumentException(
          "Invalid --sparkConf JSON map '" + entry + "': it does not parse as a JSON object of strings, e.g. "
              + "--sparkConf={\"spark.jars\":\"a.jar,b.jar\"}");
    }
    flush(entry, conf);
    return conf;
  }

  private static IllegalArgumentException malformed(String entry) {
    return new IllegalArgumentException(
        "Invalid --sparkConf entry '" + entry + "': expected spark.<setting>=<value>, "
            + "e.g. --sparkConf=spark.sql.shuffle.partitions=8, or a JSON map, --sparkConf={\"spark.jars\":\"a.jar,b.jar\"}");
  }

  private static void flush(StringBuilder entry, Map<String, String> conf) {
    if (entry == null) {
      return;
    }
    String s = entry.toString();
    int eq = s.indexOf('=');
    conf.put(s.substring(0, eq), s.substring(eq + 1));
  }

  private static boolean completeJson(String text) {
    try {
      return JSON.readTree(text).isObject();
    } catch (IOException e) {
      return false;
    }
  }

  private static void putJson(String text, Map<String, String> conf) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid --sparkConf JSON map '" + text + "': " + e.getMessage(), e);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getKey().startsWith("spark.") || !e.getValue().isValueNode() || e.getValue().isNull()) {
        throw new IllegalArgumentException(
            "Invalid --sparkConf JSON map entry \"" + e.getKey() + "\": " + e.getValue()
                + ": expected \"spark.<setting>\": \"<value>\"");
      }
      conf.put(e.getKey(), e.getValue().asText());
    }
  }
}
