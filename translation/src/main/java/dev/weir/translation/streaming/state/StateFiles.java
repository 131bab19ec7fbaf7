package dev.weir.translation.streaming.state;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where one step's keyed state goes in the checkpoint dir, read and written by the executors:
 * {@code <dir>/<partition>/<epoch>.full} holds every key of the partition as committed at that
 * epoch, {@code <epoch>.delta} the keys that epoch changed or dropped. A partition at epoch E is
 * the last full snapshot up to E and the deltas after it. Files of an epoch that was never
 * committed are deleted when the pipeline resumes ({@link CheckpointDir#discardAfter}); a retried
 * task overwrites its own.
 */
@org.apache.beam.sdk.annotations.Internal
public final class StateFiles implements Serializable {
  private static final int FORMAT = 1;

  /** One snapshot file. */
  record Snapshot(long epoch, boolean full, String path) {}

  interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  interface Reader {
    void read(DataInputStream in) throws Exception;
  }

  /** The Hadoop configuration to reach the dir with, wherever this runs. */
  public interface Conf extends Serializable {
    Configuration get();
  }

  private final String dir;
  private final Conf conf;

  public StateFiles(String dir, Conf conf) {
    this.dir = dir;
    this.conf = conf;
  }

  public String dir() {
    return dir;
  }

  /** Bytes of keyed state this JVM wrote to checkpoint dirs, both backends, since it started. */
  private static final java.util.concurrent.atomic.AtomicLong BYTES_WRITTEN = new java.util.concurrent.atomic.AtomicLong();

  /** Bytes of keyed state this JVM wrote to checkpoint dirs since it started (for benchmarks). */
  public static long bytesWritten() {
    return BYTES_WRITTEN.get();
  }

  static void countWritten(long bytes) {
    BYTES_WRITTEN.addAndGet(bytes);
  }

  FileSystem fs() throws IOException {
    return new Path(dir).getFileSystem(conf.get());
  }

  Path partitionDir(int partition) {
    return new Path(dir, Integer.toString(partition));
  }

  void write(int partition, long epoch, boolean full, Body body) throws IOException {
    Path path = new Path(partitionDir(partition), String.format("%019d", epoch) + (full ? ".full" : ".delta"));
    try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(HadoopFiles.create(fs(), path), 1 << 16))) {
      out.writeInt(FORMAT);
      out.writeLong(epoch);
      body.write(out);
      out.flush();
      countWritten(out.size());
    }
  }

  /** The files that make up the partition at {@code epoch}, to be read in order. */
  List<Snapshot> upTo(int partition, long epoch) throws IOException {
    List<Snapshot> all = new ArrayList<>();
    FileStatus[] listed;
    try {
      listed = fs().listStatus(partitionDir(partition));
    } catch (FileNotFoundException e) {
      return all;
    }
    for (FileStatus f : listed) {
      String name = f.getPath().getName();
      int dot = name.indexOf('.');
      if (dot < 0 || name.startsWith(".")) {
        continue;
      }
      long e = Long.parseLong(name.substring(0, dot));
      if (e <= epoch) {
        all.add(new Snapshot(e, name.endsWith(".full"), f.getPath().toString()));
      }
    }
    all.sort(Comparator.comparingLong(Snapshot::epoch));
    int lastFull = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).full()) {
        lastFull = i;
      }
    }
    return all.subList(lastFull, all.size());
  }

  void read(Snapshot snapshot, Reader reader) throws Exception {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(fs().open(new Path(snapshot.path())), 1 << 16))) {
      int format = in.readInt();
      long epoch = in.readLong();
      if (format != FORMAT || epoch != snapshot.epoch()) {
        throw new IOException("Not a Weir state snapshot of epoch " + snapshot.epoch() + ": " + snapshot.path());
      }
      reader.read(in);
    }
  }

  /** A file name for a step: Beam step names may hold any character. */
  public static String stepDir(String stepName) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(stepName.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(digest, 0, 10);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletes the partition's files of epochs before {@code epoch}. */
  void deleteBefore(int partition, long epoch) throws IOException {
    FileSystem fs = fs();
    for (Snapshot s : upTo(partition, epoch - 1)) {
      fs.delete(new Path(s.path()), false);
    }
    // upTo starts at the last full snapshot; older files went with the previous call.
  }
}
