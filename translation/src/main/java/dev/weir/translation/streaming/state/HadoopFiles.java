package dev.weir.translation.streaming.state;

import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Writes to a checkpoint dir's file system, through {@code java.nio} when it is the local one:
 * Hadoop's local file system sets each new file's and folder's permissions by running {@code
 * chmod}, one process per file unless Hadoop's native library is loaded (it is not, here or
 * usually in a Spark distribution), which is milliseconds per file on every epoch's commit.
 */
public final class HadoopFiles {
  private HadoopFiles() {}

  private static java.nio.file.@org.checkerframework.checker.nullness.qual.Nullable Path local(FileSystem fs, Path path) {
    if (fs instanceof LocalFileSystem local) {
      return local.pathToFile(path).toPath();
    }
    if (fs instanceof RawLocalFileSystem raw) {
      return raw.pathToFile(path).toPath();
    }
    return null;
  }

  /**
   * A new file at {@code path}, replacing one there, its folders made; on disk when closed (a
   * commit that follows must not outlive what it points at).
   */
  public static OutputStream create(FileSystem fs, Path path) throws IOException {
    java.nio.file.Path local = local(fs, path);
    if (local == null) {
      FSDataOutputStream out = fs.create(path, true);
      return new SyncedOnClose(out, out::hsync);
    }
    Files.createDirectories(local.getParent());
    staleChecksum(local);
    FileOutputStream out = new FileOutputStream(local.toFile());
    return new SyncedOnClose(out, () -> out.getFD().sync());
  }

  /** A stream whose close waits until what was written is on disk. */
  private static final class SyncedOnClose extends FilterOutputStream {
    interface Sync {
      void sync() throws IOException;
    }

    private final Sync sync;

    SyncedOnClose(OutputStream out, Sync sync) {
      super(out);
      this.sync = sync;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      out.flush();
      sync.sync();
      out.close();
    }
  }

  /**
   * Deletes the checksum file Hadoop's local file system may have written beside {@code file}
   * (an earlier Weir wrote through it): it would not match what is written now, and Hadoop would
   * refuse to read the file.
   */
  private static void staleChecksum(java.nio.file.Path file) throws IOException {
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }

  /** Renames {@code from} to {@code to}, replacing a file there (at once, on the local file system). */
  public static void replace(FileSystem fs, Path from, Path to) throws IOException {
    java.nio.file.Path localFrom = local(fs, from);
    if (localFrom == null) {
      fs.delete(to, false);
      if (!fs.rename(from, to)) {
        throw new IOException("Could not rename " + from + " to " + to);
      }
      return;
    }
    java.nio.file.Path localTo = local(fs, to);
    staleChecksum(localTo);
    Files.move(localFrom, localTo, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Writes {@code bytes} as the file {@code path} and waits until they are on disk. */
  public static void writeSynced(FileSystem fs, Path path, byte[] bytes) throws IOException {
    java.nio.file.Path local = local(fs, path);
    if (local == null) {
      try (FSDataOutputStream out = fs.create(path, true)) {
        out.write(bytes);
        out.hsync();
      }
      return;
    }
    Files.createDirectories(local.getParent());
    staleChecksum(local);
    try (FileOutputStream out = new FileOutputStream(local.toFile())) {
      out.write(bytes);
      out.getFD().sync();
    }
  }

  /** Makes the folder {@code path} and its parents. */
  public static void mkdirs(FileSystem fs, Path path) throws IOException {
    java.nio.file.Path local = local(fs, path);
    if (local == null) {
      fs.mkdirs(path);
    } else {
      Files.createDirectories(local);
    }
  }

  /** Copies the local file {@code from} to {@code to}, replacing a file there. */
  static void upload(FileSystem fs, java.nio.file.Path from, Path to) throws IOException {
    java.nio.file.Path local = local(fs, to);
    if (local == null) {
      fs.copyFromLocalFile(false, true, new Path(from.toUri()), to);
      return;
    }
    Files.createDirectories(local.getParent());
    staleChecksum(local);
    Files.copy(from, local, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel written = FileChannel.open(local, StandardOpenOption.WRITE)) {
      written.force(true);
    }
  }

  /** Copies {@code from} to the local file {@code to}. */
  static void download(FileSystem fs, Path from, java.nio.file.Path to) throws IOException {
    java.nio.file.Path local = local(fs, from);
    if (local == null) {
      fs.copyToLocalFile(false, from, new Path(to.toUri()), true);
      return;
    }
    Files.copy(local, to, StandardCopyOption.REPLACE_EXISTING);
  }
}
