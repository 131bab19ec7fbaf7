package dev.weir.translation.streaming;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import dev.weir.translation.streaming.state.HadoopFiles;
import dev.weir.translation.streaming.state.StateFiles;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A streaming pipeline's {@code --checkpointDir} (a local path or any Hadoop file system URI), as
 * the driver sees it:
 *
 * <ul>
 *   <li>{@code format}: the version of this layout and of the encodings of its files ({@link
 *       #FORMAT}); a directory of another version, or of none (written before versions were
 *       recorded), is refused rather than misread;
 *   <li>{@code pipeline}: the plan the checkpoints belong to; another pipeline is refused;
 *   <li>{@code state-backend}: the {@code --stateBackend} whose files hold the keyed state; another
 *       is refused;
 *   <li>{@code commits/epoch-N}: the {@link EpochCommit} of epoch N, written to a temporary name
 *       and renamed, so an epoch is committed entirely or not at all; the last two are kept;
 *   <li>{@code state/<step>/...}: keyed state, written by the executors ({@link StateFiles});
 *   <li>{@code plans/epoch-N/...}: what epoch N, not committed yet, decided: its processing time and
 *       how many records each source split read, so that the epoch, if cut short, runs again
 *       the same way; deleted when N is committed.
 * </ul>
 */
public final class CheckpointDir {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CheckpointDir.class);
  private static final String COMMIT = "epoch-";
  /** What {@code format} holds; changes whenever a file here is laid out or encoded otherwise. */
  // 3: a streaming Combine whose windows fire once keeps its own state per window
  // (EndOfWindowCombining), not ReduceFnRunner's; read as 2, its windows would fire empty.
  static final String FORMAT = "weir-checkpoint-format 3";

  private final String uri;
  private final FileSystem fs;
  private final Path root;
  private final Broadcast<HadoopConf> conf;

  public CheckpointDir(SparkContext sc, String uri) {
    this.uri = uri;
    try {
      this.root = new Path(uri);
      this.fs = root.getFileSystem(sc.hadoopConfiguration());
      HadoopFiles.mkdirs(fs, new Path(root, "commits"));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid --checkpointDir=" + uri + ": " + e.getMessage(), e);
    }
    this.conf = JavaSparkContext.fromSparkContext(sc).broadcast(new HadoopConf(sc.hadoopConfiguration()));
  }

  @Override
  public String toString() {
    return uri;
  }

  /**
   * Records {@code plan} as this dir's pipeline, or checks that it is the one recorded; first,
   * that the dir is of this {@link #FORMAT}.
   */
  public void checkPipeline(String plan) throws IOException {
    checkFormat();
    Path path = new Path(root, "pipeline");
    if (!fs.exists(path)) {
      write(path, plan.getBytes(StandardCharsets.UTF_8));
      return;
    }
    String recorded = new String(readAll(path), StandardCharsets.UTF_8);
    if (!recorded.equals(plan)) {
      throw new IllegalStateException(
          "--checkpointDir=" + uri + " holds the checkpoints of another pipeline (its steps or its --windowTriggers differ: see "
              + path + "); use a new directory, or run the pipeline that wrote it");
    }
  }

  /**
   * Records {@code backend} ({@code --stateBackend}) as the one whose files hold this dir's keyed
   * state, or checks that it is the one recorded: the two backends lay out their files otherwise.
   */
  public void checkStateBackend(String backend) throws IOException {
    Path path = new Path(root, "state-backend");
    boolean committed = fs.listStatus(new Path(root, "commits")).length > 0;
    if (!fs.exists(path) && committed && !backend.equals("memory")) {
      // Written before the backend was recorded, when the heap was the only one.
      throw new IllegalStateException(
          "--checkpointDir=" + uri + " holds keyed state of --stateBackend=memory, but this run asks for --stateBackend="
              + backend + "; run with --stateBackend=memory, or use a new directory");
    }
    if (!fs.exists(path)) {
      Path tmp = new Path(root, ".state-backend.tmp");
      write(tmp, backend.getBytes(StandardCharsets.UTF_8));
      if (!fs.rename(tmp, path)) {
        throw new IOException("Could not rename " + tmp + " to " + path);
      }
      return;
    }
    String recorded = new String(readAll(path), StandardCharsets.UTF_8).trim();
    if (!recorded.equals(backend)) {
      throw new IllegalStateException(
          "--checkpointDir=" + uri + " holds keyed state of --stateBackend=" + recorded + ", but this run asks for --stateBackend="
              + backend + "; run with --stateBackend=" + recorded + ", or use a new directory");
    }
  }

  private void checkFormat() throws IOException {
    Path path = new Path(root, "format");
    if (fs.exists(path)) {
      String found = new String(readAll(path), StandardCharsets.UTF_8).trim();
      if (!found.equals(FORMAT)) {
        throw new IllegalStateException(
            "--checkpointDir=" + uri + " holds checkpoints of format '" + found + "', but this Weir reads '" + FORMAT
                + "' only; use a new directory, or the Weir that wrote it");
      }
      return;
    }
    if (fs.exists(new Path(root, "pipeline")) || fs.listStatus(new Path(root, "commits")).length > 0) {
      throw new IllegalStateException(
          "--checkpointDir=" + uri + " holds checkpoints without a format version (written by an earlier Weir), which"
              + " this Weir cannot read ('" + FORMAT + "'); use a new directory");
    }
    // Under a temporary name, then renamed: a crash mid-write must not leave an empty format.
    Path tmp = new Path(root, ".format.tmp");
    write(tmp, FORMAT.getBytes(StandardCharsets.UTF_8));
    if (!fs.rename(tmp, path)) {
      throw new IOException("Could not rename " + tmp + " to " + path);
    }
  }

  /** The last committed epoch, or null if none was. */
  public @Nullable EpochCommit latest() throws IOException {
    long last = -1;
    for (FileStatus f : fs.listStatus(new Path(root, "commits"))) {
      String name = f.getPath().getName();
      if (name.startsWith(COMMIT)) {
        last = Math.max(last, Long.parseLong(name.substring(COMMIT.length())));
      }
    }
    if (last < 0) {
      return null;
    }
    Path path = commitPath(last);
    try {
      return EpochCommit.decode(readAll(path), "The commit " + path);
    } catch (IOException e) {
      throw new IllegalStateException("Could not read the commit " + path + " in --checkpointDir=" + uri, e);
    }
  }

  /** Commits an epoch: after this, a restarted pipeline resumes from it. */
  public void commit(EpochCommit commit) throws IOException {
    byte[] bytes = commit.encode();
    Path tmp = new Path(root, "commits/." + COMMIT + commit.epoch() + ".tmp");
    write(tmp, bytes);
    if (!fs.rename(tmp, commitPath(commit.epoch()))) {
      throw new IOException("Could not rename " + tmp + " to " + commitPath(commit.epoch()));
    }
    fs.delete(commitPath(commit.epoch() - 2), false);
    fs.delete(planDir(commit.epoch()), true);
    LOG.debug("Committed epoch {} to --checkpointDir={}", commit.epoch(), uri);
  }

  private Path planDir(long epoch) {
    return new Path(root, "plans/" + COMMIT + epoch);
  }

  /** Records one decision of epoch {@code epoch}, replacing it whole or not at all. */
  void writePlan(long epoch, String name, byte[] data) throws IOException {
    Path tmp = new Path(planDir(epoch), "." + name + ".tmp");
    Path path = new Path(planDir(epoch), name);
    write(tmp, data);
    fs.delete(path, false);
    if (!fs.rename(tmp, path)) {
      throw new IOException("Could not rename " + tmp + " to " + path);
    }
  }

  /** The decisions recorded for epoch {@code epoch}, by name (empty if none). */
  java.util.Map<String, byte[]> readPlan(long epoch) throws IOException {
    java.util.Map<String, byte[]> plan = new java.util.HashMap<>();
    if (!fs.exists(planDir(epoch))) {
      return plan;
    }
    for (FileStatus f : fs.listStatus(planDir(epoch))) {
      String name = f.getPath().getName();
      if (!name.startsWith(".")) {
        plan.put(name, readAll(f.getPath()));
      }
    }
    return plan;
  }

  /**
   * Deletes what epochs after {@code epoch} left (state files of epochs that were never
   * committed), before the pipeline resumes from {@code epoch}.
   */
  public void discardAfter(long epoch) throws IOException {
    Path state = new Path(root, "state");
    if (!fs.exists(state)) {
      return;
    }
    for (FileStatus step : fs.listStatus(state)) {
      for (FileStatus partition : fs.listStatus(step.getPath())) {
        for (FileStatus file : fs.listStatus(partition.getPath())) {
          String name = file.getPath().getName();
          int dot = name.indexOf('.');
          if (dot > 0 && Long.parseLong(name.substring(0, dot)) > epoch) {
            fs.delete(file.getPath(), false);
          }
        }
      }
    }
  }

  /** Where step {@code stepName} keeps its keyed state. */
  StateFiles stateFiles(String stepName) {
    Broadcast<HadoopConf> shipped = conf;
    return new StateFiles(new Path(new Path(root, "state"), stepDir(stepName)).toString(), () -> shipped.value().get());
  }

  /** A file name for a step: Beam step names may hold any character. */
  static String stepDir(String stepName) {
    return StateFiles.stepDir(stepName);
  }

  private Path commitPath(long epoch) {
    return new Path(root, "commits/" + COMMIT + epoch);
  }

  private void write(Path path, byte[] bytes) throws IOException {
    HadoopFiles.writeSynced(fs, path, bytes);
  }

  private byte[] readAll(Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    } catch (FileNotFoundException e) {
      throw new IOException("Missing " + path + " in --checkpointDir=" + uri, e);
    }
  }
}
