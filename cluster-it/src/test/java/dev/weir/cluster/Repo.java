package dev.weir.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Where the project's files are, and what the build passes to the tests (see the pom). */
final class Repo {
  private Repo() {}

  /** The repository's root: the first directory above the working directory with {@code ci/}. */
  static Path root() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("ci/spark-cluster.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("ci/spark-cluster.sh not found above " + Path.of("").toAbsolutePath());
  }

  /** The JVM options Spark needs on Java 17 (the root pom's {@code weir.java17.opens}). */
  static List<String> java17Opens() {
    return List.of(property("weir.java17.opens").trim().split("\\s+"));
  }

  /** The application jar for spark-submit, {@code bundle/}'s, as the build copied it. */
  static Path bundleJar() {
    Path jar = Path.of(property("weir.bundle.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build the bundle (mvn install) first");
    }
    return jar;
  }

  /** The word count example's input, {@code examples/data/weir.txt}. */
  static Path wordCountInput() {
    return Path.of(property("weir.examples.input")).toAbsolutePath().normalize();
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + name + " is not set: run the tests through Maven (see the pom)");
    }
    return value;
  }
}
