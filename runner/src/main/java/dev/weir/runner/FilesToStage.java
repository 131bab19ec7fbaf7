package dev.weir.runner;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a pipeline ships to a cluster's executors ({@code --filesToStage}, as in Beam's Spark and
 * Flink runners): the files given, or by default the driver's classpath, where class directories
 * (an IDE's or Maven's {@code target/classes}) are packed into jars and a manifest-only jar (as
 * Maven's test launcher uses) stands for the jars its manifest lists. Jars that the Spark
 * installation at {@code $SPARK_HOME/jars} holds too are left out: a cluster's executors have
 * them. The packed jars live in a temporary directory owned by this object, deleted by {@link
 * #close} (when the Spark session that serves them stops).
 */
final class FilesToStage implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FilesToStage.class);

  private final List<String> files;
  private final @Nullable Path packed;

  private FilesToStage(List<String> files, @Nullable Path packed) {
    this.files = files;
    this.packed = packed;
  }

  /** The files to ship: {@code given}, or the driver's classpath if null or empty. */
  static FilesToStage of(@Nullable List<String> given, @Nullable String sparkHome) {
    boolean fromClasspath = given == null || given.isEmpty();
    List<String> entries =
        fromClasspath ? expand(List.of(System.getProperty("java.class.path").split(File.pathSeparator))) : given;
    Set<String> provided = fromClasspath ? sparkHomeJars(sparkHome) : Set.of();
    List<String> files = new ArrayList<>();
    Path packed = null;
    long bytes = 0;
    int skipped = 0;
    try {
      for (String entry : entries) {
        File f = new File(entry);
        if (!f.exists()) {
          if (!fromClasspath) {
            throw new IllegalArgumentException("Invalid --filesToStage: " + entry + " does not exist");
          }
          continue;
        }
        if (f.isDirectory()) {
          if (packed == null) {
            packed = Files.createTempDirectory("weir-staged-");
          }
          File jar = packDirectory(f.toPath(), packed.resolve("classes-" + files.size() + ".jar"));
          files.add(jar.getAbsolutePath());
          bytes += jar.length();
        } else if (provided.contains(f.getName())) {
          skipped++;
        } else {
          files.add(f.getAbsolutePath());
          bytes += f.length();
        }
      }
    } catch (IOException e) {
      deleteQuietly(packed);
      throw new UncheckedIOException("Could not pack the driver's class directories into jars to stage", e);
    }
    LOG.info(
        "Staging {} files ({} MB) to the executors{}{}",
        files.size(),
        bytes >> 20,
        fromClasspath ? " from the driver's classpath" : " from --filesToStage",
        skipped > 0 ? ", leaving out " + skipped + " jars that $SPARK_HOME/jars has" : "");
    return new FilesToStage(files, packed);
  }

  List<String> files() {
    return files;
  }

  /** Classpath entries, with a manifest-only jar replaced by the entries its manifest lists. */
  private static List<String> expand(List<String> entries) {
    Set<String> out = new LinkedHashSet<>();
    for (String entry : entries) {
      if (entry.isEmpty()) {
        continue;
      }
      File f = new File(entry);
      List<String> listed = manifestClassPath(f);
      if (listed.isEmpty()) {
        out.add(f.getAbsolutePath());
      } else {
        out.addAll(expand(listed));
      }
    }
    return new ArrayList<>(out);
  }

  /** The entries of a jar's manifest {@code Class-Path}, if the jar holds no class of its own. */
  private static List<String> manifestClassPath(File f) {
    if (!f.isFile() || !f.getName().endsWith(".jar")) {
      return List.of();
    }
    try (JarFile jar = new JarFile(f)) {
      Manifest manifest = jar.getManifest();
      String classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
      if (classPath == null || jar.stream().anyMatch(e -> e.getName().endsWith(".class"))) {
        return List.of();
      }
      List<String> listed = new ArrayList<>();
      for (String url : classPath.trim().split("\\s+")) {
        listed.add(java.net.URI.create(url).isAbsolute() ? new File(java.net.URI.create(url)).getPath()
            : f.toPath().resolveSibling(url).toString());
      }
      return listed;
    } catch (IOException | IllegalArgumentException e) {
      return List.of();
    }
  }

  private static Set<String> sparkHomeJars(@Nullable String sparkHome) {
    if (sparkHome == null) {
      return Set.of();
    }
    File[] jars = new File(sparkHome, "jars").listFiles((dir, name) -> name.endsWith(".jar"));
    Set<String> names = new HashSet<>();
    if (jars != null) {
      for (File jar : jars) {
        names.add(jar.getName());
      }
    }
    return names;
  }

  private static File packDirectory(Path dir, Path jar) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
        if (p.equals(dir)) {
          continue;
        }
        String name = dir.relativize(p).toString().replace(File.separatorChar, '/');
        if (Files.isDirectory(p)) {
          out.putNextEntry(new JarEntry(name + "/"));
          out.closeEntry();
        } else {
          out.putNextEntry(new JarEntry(name));
          Files.copy(p, out);
          out.closeEntry();
        }
      }
    }
    return jar.toFile();
  }

  @Override
  public void close() {
    deleteQuietly(packed);
  }

  private static void deleteQuietly(@Nullable Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("Could not delete {}", dir, e);
    }
  }
}
