package dev.weir.translation.streaming.state;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import org.apache.beam.sdk.annotations.Internal;
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
@Internal
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

  /** A new file at {@code path}, replacing one there, its folders made. */
  public static OutputStream create(FileSystem fs, Path path) throws IOException {
    java.nio.file.Path local = local(fs, path);
    if (local == null) {
      return fs.create(path, true);
    }
    Files.createDirectories(local.getParent());
    return Files.newOutputStream(local);
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
    Files.copy(from, local, StandardCopyOption.REPLACE_EXISTING);
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
