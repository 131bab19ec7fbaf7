package dev.weir.nexmark.reference;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.model.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.beam.sdk.values.TimestampedValue;

/**
 * What query 10 must have written, read back from its directory. Each event is one line (its
 * {@code toString()}) in a file named {@code LOG-<window start ms>-shard-<s>-pane-<i>-<timing>.txt},
 * where the window is the event's fixed window, {@code s} is |hashCode| mod 25, and the panes of
 * a window and shard are numbered from 0: EARLY ones (fired after at least maxLogEvents events
 * each), then one ON_TIME pane when the watermark passes the window's end (it may be empty);
 * the input is never late, so there is no LATE pane. Every event is logged exactly once.
 */
public final class Query10Files {
  private static final long SHARDS = 25;
  private static final Pattern NAME = Pattern.compile("LOG-(-?\\d+)-shard-(\\d+)-pane-(\\d+)-(EARLY|ON_TIME|LATE|UNKNOWN)\\.txt");

  private Query10Files() {}

  /** Every way {@code dir} differs from what query 10 must write for {@code events}; empty if none. */
  public static List<String> problems(Path dir, List<TimestampedValue<Event>> events, NexmarkConfig config)
      throws IOException {
    long size = config.windowSizeSec * 1000L;
    Map<String, Map<String, Integer>> expected = new TreeMap<>(); // "start/shard" -> line -> count
    for (TimestampedValue<Event> e : events) {
      long shard = Math.abs((long) e.getValue().hashCode()) % SHARDS;
      String key = WindowMath.fixedStart(e.getTimestamp().getMillis(), size) + "/" + shard;
      expected.computeIfAbsent(key, k -> new HashMap<>()).merge(e.getValue().toString(), 1, Integer::sum);
    }
    List<String> problems = new ArrayList<>();
    Map<String, TreeMap<Integer, String>> panes = new TreeMap<>(); // "start/shard" -> index -> timing
    Map<String, Map<String, Integer>> written = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(f -> f.getFileName().toString().startsWith("LOG-")).sorted().toList();
    }
    for (Path f : files) {
      Matcher m = NAME.matcher(f.getFileName().toString());
      if (!m.matches()) {
        problems.add("file name not of the form LOG-<start>-shard-<s>-pane-<i>-<timing>.txt: " + f.getFileName());
        continue;
      }
      String key = m.group(1) + "/" + m.group(2);
      int index = Integer.parseInt(m.group(3));
      if (panes.computeIfAbsent(key, k -> new TreeMap<>()).put(index, m.group(4)) != null) {
        problems.add("pane " + index + " of window/shard " + key + " written twice");
      }
      List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
      if (m.group(4).equals("EARLY") && lines.size() < config.maxLogEvents) {
        problems.add(f.getFileName() + ": an EARLY pane of " + lines.size() + " events, fewer than maxLogEvents="
            + config.maxLogEvents);
      }
      for (String line : lines) {
        written.computeIfAbsent(key, k -> new HashMap<>()).merge(line, 1, Integer::sum);
      }
    }
    panes.forEach((key, timings) -> {
      int last = timings.lastKey();
      if (timings.size() != last + 1) {
        problems.add("window/shard " + key + " has panes " + timings.keySet() + ", not 0.." + last);
      }
      timings.forEach((index, timing) -> {
        String want = index == last ? "ON_TIME" : "EARLY";
        if (!timing.equals(want)) {
          problems.add("window/shard " + key + " pane " + index + " is " + timing + ", expected " + want);
        }
      });
    });
    for (String key : union(expected, written)) {
      Map<String, Integer> want = expected.getOrDefault(key, Map.of());
      Map<String, Integer> got = written.getOrDefault(key, Map.of());
      for (String line : union(want, got)) {
        int w = want.getOrDefault(line, 0);
        int g = got.getOrDefault(line, 0);
        if (w != g) {
          problems.add("window/shard " + key + ": " + g + " time(s), expected " + w + ": " + line);
        }
      }
    }
    return problems;
  }

  private static <V> List<String> union(Map<String, V> a, Map<String, V> b) {
    TreeMap<String, Boolean> keys = new TreeMap<>();
    a.keySet().forEach(k -> keys.put(k, true));
    b.keySet().forEach(k -> keys.put(k, true));
    return new ArrayList<>(keys.keySet());
  }
}
