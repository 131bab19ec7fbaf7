package dev.weir.translation.streaming.state;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A RocksDB partition's checkpoints in the checkpoint dir, uploaded incrementally. In the
 * partition's folder ({@link StateFiles#partitionDir}):
 *
 * <ul>
 *   <li>{@code sst/<number>-<random>.sst}: SST files, each uploaded once. RocksDB never changes an
 *       SST file, so a commit references the ones the previous commit uploaded and uploads only
 *       those it lacks: an epoch costs what it changed, not the size of the state. The random part
 *       keeps apart two files of one number written by two attempts (a restored partition numbers
 *       its new files from where its checkpoint left off);
 *   <li>{@code <epoch>.rocks}: the manifest of the partition as committed at that epoch: its format
 *       ({@link #FORMAT}), the epoch, the SST files by local and uploaded name, and RocksDB's small
 *       files (MANIFEST, CURRENT, OPTIONS) whole.
 * </ul>
 *
 * Two manifests are kept: the one the epoch started from and the new one (the driver commits the
 * epoch after its tasks end, so until then a restart resumes from the older). Older manifests,
 * and SST files only they named, are deleted at each upload. Manifests of epochs that were never
 * committed are deleted when a pipeline resumes ({@code CheckpointDir#discardAfter}). The format
 * ({@link #FORMAT}) covers the manifest and the layout of the records in the SST files ({@link
 * RocksDbKeys}, {@link RocksDbPartition}'s meta records).
 */
final class RocksDbCheckpoints {
  static final int FORMAT = 1;
  private static final String SUFFIX = ".rocks";

  /** An SST file: its name in the RocksDB folder, its name in {@code sst/}, its size. */
  record SstFile(String local, String uploaded, long size) {}

  /** What one commit of the partition is made of; {@code id} tells apart two attempts' commits of one epoch. */
  record Manifest(long epoch, String id, List<SstFile> ssts, Map<String, byte[]> smallFiles) {}

  private final StateFiles files;
  private final int partition;

  RocksDbCheckpoints(StateFiles files, int partition) {
    this.files = files;
    this.partition = partition;
  }

  String describe() {
    return files.dir() + "/" + partition;
  }

  private Path manifestPath(long epoch) {
    return new Path(files.partitionDir(partition), String.format("%019d", epoch) + SUFFIX);
  }

  private Path sstDir() {
    return new Path(files.partitionDir(partition), "sst");
  }

  /**
   * Uploads the local RocksDB checkpoint {@code checkpoint} as the partition at {@code epoch}:
   * the SST files {@code base} (the manifest the epoch started from, or null) does not have, and
   * a new manifest. Then deletes what neither needs. Returns the new manifest.
   */
  Manifest upload(long epoch, java.nio.file.Path checkpoint, @Nullable Manifest base) throws IOException {
    FileSystem fs = files.fs();
    Map<String, SstFile> known = new HashMap<>();
    if (base != null) {
      for (SstFile f : base.ssts()) {
        known.put(f.local(), f);
      }
    }
    List<SstFile> ssts = new ArrayList<>();
    Map<String, byte[]> small = new LinkedHashMap<>();
    long uploadedBytes = 0;
    try (DirectoryStream<java.nio.file.Path> listing = Files.newDirectoryStream(checkpoint)) {
      for (java.nio.file.Path file : listing) {
        String name = file.getFileName().toString();
        if (!name.endsWith(".sst")) {
          small.put(name, Files.readAllBytes(file));
          continue;
        }
        long size = Files.size(file);
        SstFile had = known.get(name);
        if (had != null && had.size() == size) {
          ssts.add(had);
          continue;
        }
        String uploaded = name.substring(0, name.length() - 4) + "-" + UUID.randomUUID() + ".sst";
        HadoopFiles.upload(fs, file, new Path(sstDir(), uploaded));
        uploadedBytes += size;
        ssts.add(new SstFile(name, uploaded, size));
      }
    }
    Manifest manifest = new Manifest(epoch, UUID.randomUUID().toString(), ssts, small);
    uploadedBytes += writeManifest(fs, manifest);
    StateFiles.countWritten(uploadedBytes);
    deleteUnneeded(fs, base == null ? epoch : base.epoch());
    return manifest;
  }

  private long writeManifest(FileSystem fs, Manifest manifest) throws IOException {
    Path path = manifestPath(manifest.epoch());
    // A name of its own: two attempts of a task may commit the same epoch at once.
    Path tmp = new Path(path.getParent(), "." + path.getName() + "." + manifest.id() + ".tmp");
    long size;
    try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(HadoopFiles.create(fs, tmp), 1 << 16))) {
      out.writeInt(FORMAT);
      out.writeLong(manifest.epoch());
      out.writeUTF(manifest.id());
      out.writeInt(manifest.ssts().size());
      for (SstFile f : manifest.ssts()) {
        out.writeUTF(f.local());
        out.writeUTF(f.uploaded());
        out.writeLong(f.size());
      }
      out.writeInt(manifest.smallFiles().size());
      for (Map.Entry<String, byte[]> f : manifest.smallFiles().entrySet()) {
        out.writeUTF(f.getKey());
        out.writeInt(f.getValue().length);
        out.write(f.getValue());
      }
      out.flush();
      size = out.size();
    }
    HadoopFiles.replace(fs, tmp, path);
    return size;
  }

  /** The id of the manifest of the partition at {@code epoch}, or null if there is none. */
  @Nullable
  String idOf(long epoch) throws IOException {
    Path path = manifestPath(epoch);
    try (DataInputStream in = new DataInputStream(files.fs().open(path))) {
      return header(in, epoch, path);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  private static String header(DataInputStream in, long epoch, Path path) throws IOException {
    int format = in.readInt();
    long epochRead = in.readLong();
    if (format != FORMAT || epochRead != epoch) {
      throw new IOException(
          "Not a Weir RocksDB checkpoint of format " + FORMAT + " and epoch " + epoch + " (format " + format
              + ", epoch " + epochRead + "): " + path);
    }
    return in.readUTF();
  }

  /** The manifest of the partition at {@code epoch}; a missing one is a {@link FileNotFoundException}. */
  Manifest read(long epoch) throws IOException {
    Path path = manifestPath(epoch);
    FileSystem fs = files.fs();
    if (!fs.exists(path)) {
      throw new FileNotFoundException("No RocksDB checkpoint of epoch " + epoch + ": " + path + " is missing");
    }
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(fs.open(path), 1 << 16))) {
      String id = header(in, epoch, path);
      List<SstFile> ssts = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        ssts.add(new SstFile(in.readUTF(), in.readUTF(), in.readLong()));
      }
      Map<String, byte[]> small = new LinkedHashMap<>();
      for (int i = in.readInt(); i > 0; i--) {
        String name = in.readUTF();
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        small.put(name, bytes);
      }
      if (in.read() != -1) {
        throw new IOException("Trailing bytes after the RocksDB checkpoint " + path);
      }
      return new Manifest(epoch, id, ssts, small);
    }
  }

  /** Writes the partition as committed at {@code epoch} into the empty folder {@code into}. */
  Manifest download(long epoch, java.nio.file.Path into) throws IOException {
    Manifest manifest = read(epoch);
    FileSystem fs = files.fs();
    for (SstFile f : manifest.ssts()) {
      java.nio.file.Path local = into.resolve(f.local());
      HadoopFiles.download(fs, new Path(sstDir(), f.uploaded()), local);
      if (Files.size(local) != f.size()) {
        throw new IOException(
            "The RocksDB checkpoint of epoch " + epoch + " names " + f.uploaded() + " of " + f.size() + " bytes, but it has "
                + Files.size(local));
      }
    }
    for (Map.Entry<String, byte[]> f : manifest.smallFiles().entrySet()) {
      Files.write(into.resolve(f.getKey()), f.getValue());
    }
    return manifest;
  }

  /**
   * Deletes the manifests of epochs before {@code keepFrom}, and the SST files that they named and
   * no kept manifest (as the dir holds them now) names. An SST file no manifest names may be one
   * another attempt is uploading, before its manifest: such files are deleted only once they are
   * an hour old (what attempts that failed left).
   */
  private void deleteUnneeded(FileSystem fs, long keepFrom) throws IOException {
    Set<String> needed = new HashSet<>();
    Set<String> unneeded = new HashSet<>();
    for (FileStatus f : fs.listStatus(files.partitionDir(partition))) {
      String name = f.getPath().getName();
      if (name.startsWith(".") || !name.endsWith(SUFFIX)) {
        continue;
      }
      long epoch = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
      Manifest manifest = read(epoch);
      for (SstFile sst : manifest.ssts()) {
        (epoch < keepFrom ? unneeded : needed).add(sst.uploaded());
      }
      if (epoch < keepFrom) {
        fs.delete(f.getPath(), false);
      }
    }
    if (!fs.exists(sstDir())) {
      return;
    }
    long orphanBefore = System.currentTimeMillis() - java.util.concurrent.TimeUnit.HOURS.toMillis(1);
    for (FileStatus f : fs.listStatus(sstDir())) {
      String name = f.getPath().getName();
      if (needed.contains(name)) {
        continue;
      }
      if (unneeded.contains(name) || f.getModificationTime() < orphanBefore) {
        fs.delete(f.getPath(), false);
      }
    }
  }
}
