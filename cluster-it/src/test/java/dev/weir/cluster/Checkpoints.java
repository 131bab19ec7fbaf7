package dev.weir.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What a streaming pipeline's {@code --checkpointDir} shows from outside: {@code commits/epoch-N}
 * once epoch N is committed, {@code plans/epoch-N/read-*} once epoch N has recorded what its
 * sources read (so the epoch has begun; a restart replays it).
 */
final class Checkpoints {
  private Checkpoints() {}

  /** The last epoch committed, 0 if none. */
  static long committedEpoch(Path checkpointDir) {
    Path commits = checkpointDir.resolve("commits");
    if (!Files.isDirectory(commits)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(commits)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("epoch-\\d+"))
          .mapToLong(n -> Long.parseLong(n.substring("epoch-".length())))
          .max()
          .orElse(0);
    } catch (IOException e) {
      return 0; // a commit renamed while listing: the next poll sees it
    }
  }

  /** Whether epoch {@code epoch} has recorded what its sources read. */
  static boolean hasReadPlan(Path checkpointDir, long epoch) {
    Path plan = checkpointDir.resolve("plans/epoch-" + epoch);
    if (!Files.isDirectory(plan)) {
      return false;
    }
    try (Stream<Path> files = Files.list(plan)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("read-"));
    } catch (IOException e) {
      return false; // the plan dir deleted by the commit while listing
    }
  }
}
