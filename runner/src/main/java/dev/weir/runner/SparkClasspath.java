package dev.weir.runner;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Checks, before Spark starts, that no other jar shadows a library Spark needs in a version of
 * its own. The case seen: {@code kafka-clients} (before 3.9.2, and 4.0.0 to 4.1.1) brings {@code
 * org.lz4:lz4-java} 1.8.0, whose {@code net.jpountz.lz4} classes are also those of Spark 4.2's
 * {@code at.yawk.lz4:lz4-java}; when Kafka's comes first, Spark's shuffle fails much later with
 * {@code NoSuchMethodError: LZ4BlockInputStream.newBuilder()}. This fails at once instead, saying
 * which jar to exclude.
 */
final class SparkClasspath {
  /** The class, and a method of it that only the version Spark needs has. */
  private static final String LZ4_CLASS = "net.jpountz.lz4.LZ4BlockInputStream";
  private static final String LZ4_METHOD = "newBuilder";

  private SparkClasspath() {}

  /** @throws IllegalStateException naming the jars and the exclusion to make */
  static void check(ClassLoader loader) {
    List<URL> copies;
    try {
      copies = Collections.list(loader.getResources(LZ4_CLASS.replace('.', '/') + ".class"));
    } catch (IOException e) {
      throw new IllegalStateException("Could not look for " + LZ4_CLASS + " on the classpath", e);
    }
    if (copies.size() > 1) {
      throw new IllegalStateException(
          "The classpath holds " + copies.size() + " copies of lz4-java's classes (" + LZ4_CLASS + "): "
              + jars(copies) + ". Spark 4.2 needs its own, at.yawk.lz4:lz4-java 1.11; exclude the others, e.g. "
              + "org.lz4:lz4-java from kafka-clients (<exclusion><groupId>org.lz4</groupId><artifactId>lz4-java"
              + "</artifactId></exclusion>; see README.md, Kafka)");
    }
    if (copies.size() == 1) {
      Class<?> lz4;
      try {
        lz4 = Class.forName(LZ4_CLASS, false, loader);
      } catch (ClassNotFoundException e) {
        return;
      }
      for (java.lang.reflect.Method m : lz4.getMethods()) {
        if (m.getName().equals(LZ4_METHOD)) {
          return;
        }
      }
      throw new IllegalStateException(
          "lz4-java on the classpath (" + jars(copies) + ") is older than the one Spark 4.2 needs ("
              + LZ4_CLASS + " has no " + LZ4_METHOD + "()): exclude org.lz4:lz4-java from the dependency that "
              + "brings it (kafka-clients before 3.9.2 does), so that Spark's at.yawk.lz4:lz4-java is used");
    }
  }

  private static String jars(List<URL> resources) {
    List<String> jars = new ArrayList<>();
    for (URL url : resources) {
      String s = url.toString();
      int bang = s.indexOf("!/");
      jars.add(bang > 0 ? s.substring(0, bang).replaceFirst("^jar:", "") : s);
    }
    return String.join(", ", jars);
  }
}
