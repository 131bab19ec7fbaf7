package dev.weir.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What WeirRunner's drivers logged at DEBUG about KafkaIO's checkpoint marks: for each epoch and
 * split, {@code Epoch N step 'S' split i: mark KafkaCheckpointMark{partitions=PartitionMark{topic='T',
 * partition=P, nextOffset=O, ...},...}} (UnboundedReadTranslator), and {@code Committed epoch N to
 * --checkpointDir=...} (CheckpointDir). Logs are read in the order of the runs; an epoch run again
 * after a restart reads what it read before, so its marks replace the same ones.
 */
final class DriverLog {
  private static final Pattern MARK = Pattern.compile("Epoch (\\d+) step '[^']*' split \\d+: mark (.*)$");
  private static final Pattern PARTITION =
      Pattern.compile("PartitionMark\\{topic='([^']*)', partition=(\\d+), nextOffset=(-?\\d+)");
  private static final Pattern COMMIT = Pattern.compile("Committed epoch (\\d+) to --checkpointDir=");

  /** topic/partition to epoch to the next offset the epoch's mark holds. */
  private final Map<String, TreeMap<Long, Long>> marks = new HashMap<>();
  private long lastCommit;

  private DriverLog() {}

  static DriverLog read(List<Path> logs) throws IOException {
    DriverLog log = new DriverLog();
    for (Path file : logs) {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          log.add(line);
        }
      }
    }
    return log;
  }

  private void add(String line) {
    Matcher m = MARK.matcher(line);
    if (m.find()) {
      long epoch = Long.parseLong(m.group(1));
      Matcher p = PARTITION.matcher(m.group(2));
      while (p.find()) {
        long next = Long.parseLong(p.group(3));
        if (next >= 0) { // negative: not read from yet
          marks.computeIfAbsent(p.group(1) + "/" + p.group(2), k -> new TreeMap<>()).put(epoch, next);
        }
      }
      return;
    }
    Matcher c = COMMIT.matcher(line);
    if (c.find()) {
      lastCommit = Math.max(lastCommit, Long.parseLong(c.group(1)));
    }
  }

  /** The highest epoch a driver logged as committed, 0 if none. */
  long lastCommitLogged() {
    return lastCommit;
  }

  /**
   * For each partition of {@code topic} read up to {@code epoch}: the next offset in the mark of
   * the latest epoch up to {@code epoch} that reported one.
   */
  Map<Integer, Long> nextOffsetsAt(String topic, long epoch) {
    Map<Integer, Long> offsets = new HashMap<>();
    marks.forEach((key, byEpoch) -> {
      if (key.startsWith(topic + "/")) {
        Map.Entry<Long, Long> at = byEpoch.floorEntry(epoch);
        if (at != null) {
          offsets.put(Integer.parseInt(key.substring(topic.length() + 1)), at.getValue());
        }
      }
    });
    return offsets;
  }

  /** The marks of one partition, by epoch (for failure messages). */
  SortedMap<Long, Long> byEpoch(String topic, int partition) {
    return marks.getOrDefault(topic + "/" + partition, new TreeMap<>());
  }
}
