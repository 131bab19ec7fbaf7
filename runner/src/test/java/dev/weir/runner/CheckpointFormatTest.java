package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Sum;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint dir records the version of its format and its state backend; a streaming pipeline
 * refuses one of another version, or of none (as Weir wrote them before versions were recorded),
 * or of the other backend, before any epoch runs, naming the option and the directory, rather
 * than misreading it.
 */
class CheckpointFormatTest {
  private static final String FORMAT = "weir-checkpoint-format 3";

  private static Pipeline countThree(Path dir) {
    Pipeline p = Pipelines.create("--runtimeMode=STREAMING", "--checkpointDir=" + dir);
    PAssert.thatSingleton(p.apply(Create.of(1, 2, 3)).apply(Count.globally())).isEqualTo(3L);
    return p;
  }

  @Test
  void aNewDirRecordsItsFormat(@TempDir Path dir) throws Exception {
    countThree(dir).run();
    assertThat(Files.readString(dir.resolve("format"), StandardCharsets.UTF_8), equalTo(FORMAT));
  }

  @Test
  void aDirWithoutAFormatIsRefused(@TempDir Path dir) throws Exception {
    // What an earlier Weir left: the plan and commits, no format file.
    Files.writeString(dir.resolve("pipeline"), "steps of an earlier run", StandardCharsets.UTF_8);
    Files.createDirectories(dir.resolve("commits"));
    Files.write(dir.resolve("commits/epoch-3"), new byte[] {(byte) 0xac, (byte) 0xed, 0, 5});
    RuntimeException e = assertThrows(RuntimeException.class, () -> countThree(dir).run());
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("without a format version"));
  }

  /**
   * Format 2: a streaming Combine's windows kept ReduceFnRunner's state, which format 3's
   * end-of-window combining does not read; resumed, those windows would fire nothing.
   */
  @Test
  void aDirOfTheFormatBeforeIsRefused(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("format"), "weir-checkpoint-format 2", StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("pipeline"), "steps of an earlier run", StandardCharsets.UTF_8);
    Files.createDirectories(dir.resolve("commits"));
    RuntimeException e = assertThrows(RuntimeException.class, () -> countThree(dir).run());
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("format 'weir-checkpoint-format 2'"));
  }

  @Test
  void aDirOfAnotherFormatIsRefused(@TempDir Path dir) throws Exception {
    // Format 1: commits were Java-serialized maps (Weir before commits had explicit coders).
    Files.writeString(dir.resolve("format"), "weir-checkpoint-format 1", StandardCharsets.UTF_8);
    Files.createDirectories(dir.resolve("commits"));
    Files.write(dir.resolve("commits/epoch-3"), new byte[] {(byte) 0xac, (byte) 0xed, 0, 5});
    RuntimeException e = assertThrows(RuntimeException.class, () -> countThree(dir).run());
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("format 'weir-checkpoint-format 1'"));
  }

  /** A pipeline whose steps are the same each time it is built (PAssert numbers its steps per JVM). */
  private static Pipeline count(Path dir, String backend) {
    Pipeline p = Pipelines.create("--runtimeMode=STREAMING", "--checkpointDir=" + dir, "--stateBackend=" + backend);
    p.apply(Create.of(1, 2, 3)).apply(Count.globally());
    return p;
  }

  @Test
  void aDirOfTheOtherStateBackendIsRefused(@TempDir Path dir) throws Exception {
    count(dir, "rocksdb").run();
    assertThat(Files.readString(dir.resolve("state-backend"), StandardCharsets.UTF_8), equalTo("rocksdb"));
    // The same backend resumes.
    count(dir, "rocksdb").run();
    RuntimeException e = assertThrows(RuntimeException.class, () -> count(dir, "memory").run());
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("holds keyed state of --stateBackend=rocksdb"));
  }

  @Test
  void aDirOfAnotherPipelineIsRefused(@TempDir Path dir) throws Exception {
    count(dir, "memory").run();
    Pipeline other = Pipelines.create("--runtimeMode=STREAMING", "--checkpointDir=" + dir);
    other.apply(Create.of(1, 2, 3)).apply(Sum.integersGlobally());
    RuntimeException e = assertThrows(RuntimeException.class, other::run);
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("holds the checkpoints of another pipeline"));
  }

  /**
   * With its triggers ignored, a triggered Combine keeps its windows' state otherwise than with
   * them: a run that flips {@code --windowTriggers} would misread it.
   */
  @Test
  void aDirWrittenUnderOtherWindowTriggersIsRefused(@TempDir Path dir) throws Exception {
    count(dir, "memory").run();
    Pipeline flipped =
        Pipelines.create("--runtimeMode=STREAMING", "--checkpointDir=" + dir, "--windowTriggers=IGNORE");
    flipped.apply(Create.of(1, 2, 3)).apply(Count.globally());
    RuntimeException e = assertThrows(RuntimeException.class, flipped::run);
    assertThat(e.getMessage(), containsString("--checkpointDir=" + dir));
    assertThat(e.getMessage(), containsString("--windowTriggers differ"));
  }

  @Test
  void aWrongStateBackendIsRefusedNamingTheOption() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Pipelines.create("--stateBackend=leveldb").run());
    assertThat(e.getMessage(), equalTo("Invalid --stateBackend=leveldb: must be memory or rocksdb"));
  }
}
