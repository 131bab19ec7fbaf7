package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check against libraries that shadow Spark's, with lz4-java as Kafka's clients bring it. */
class SparkClasspathTest {
  /** A stand-in for org.lz4:lz4-java 1.8.0: the class without the method Spark 4.2 calls. */
  private static Path oldLz4(Path dir) throws Exception {
    Path source = dir.resolve("src/net/jpountz/lz4/LZ4BlockInputStream.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "package net.jpountz.lz4; public class LZ4BlockInputStream {}");
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc = javac.run(null, null, null, "-d", classes.toString(), source.toString());
    assertThat("javac of the stand-in", rc, org.hamcrest.Matchers.equalTo(0));
    return classes;
  }

  private static URL sparksLz4() {
    return net.jpountz.lz4.LZ4BlockInputStream.class.getProtectionDomain().getCodeSource().getLocation();
  }

  @Test
  void sparksOwnLz4Passes() {
    SparkClasspath.check(SparkClasspathTest.class.getClassLoader());
  }

  @Test
  void anOlderLz4InItsPlaceNamesTheJarAndTheExclusion(@TempDir Path dir) throws Exception {
    try (URLClassLoader loader = new URLClassLoader(new URL[] {oldLz4(dir).toUri().toURL()}, null)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> SparkClasspath.check(loader));
      assertThat(e.getMessage(), containsString(dir.resolve("classes").toString()));
      assertThat(e.getMessage(), containsString("exclude org.lz4:lz4-java"));
    }
  }

  @Test
  void twoCopiesAreNamedBoth(@TempDir Path dir) throws Exception {
    URL[] both = {sparksLz4(), oldLz4(dir).toUri().toURL()};
    try (URLClassLoader loader = new URLClassLoader(both, null)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> SparkClasspath.check(loader));
      assertThat(e.getMessage(), containsString("2 copies"));
      assertThat(e.getMessage(), containsString(sparksLz4().toString()));
      assertThat(e.getMessage(), containsString("org.lz4:lz4-java from kafka-clients"));
    }
  }
}
