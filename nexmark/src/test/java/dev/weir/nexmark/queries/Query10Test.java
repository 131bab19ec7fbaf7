package dev.weir.nexmark.queries;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.NexmarkEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Query 10 logs every event once, to shard files, on WeirRunner. */
class Query10Test {
  @Test
  void everyEventIsLoggedOnceInShardFiles(@TempDir Path dir) throws Exception {
    NexmarkConfig config = new NexmarkConfig();
    config.numEvents = 3_000;
    config.outputPath = dir.toString();
    Pipeline p = Pipeline.create(PipelineOptionsFactory.fromArgs(
        "--runner=WeirRunner", "--sparkMaster=local[2]", "--processingTimeTimers=ALLOW").create());
    p.apply(NexmarkEvents.bounded(config)).apply(new Query10().transform(config));
    p.run().waitUntilFinish();
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(f -> f.getFileName().toString().startsWith("LOG-")).toList();
    }
    assertThat(files.size(), greaterThan(1));
    long lines = 0;
    for (Path f : files) {
      lines += Files.readAllLines(f).size();
    }
    assertThat(lines, equalTo(3_000L));
  }
}
