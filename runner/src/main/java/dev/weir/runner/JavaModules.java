package dev.weir.runner;

/**
 * Spark on Java 17 needs the JDK's internals opened to it, as spark-submit does with
 * {@code --add-opens}. Without them Spark fails deep inside with an IllegalAccessError; this
 * says what to add instead.
 */
final class JavaModules {
  static final String FLAGS =
      "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED "
          + "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED "
          + "--add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED "
          + "--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED "
          + "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED "
          + "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED "
          + "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED "
          + "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED";

  private JavaModules() {}

  static void checkOpens() {
    Module javaBase = Object.class.getModule();
    Module us = JavaModules.class.getModule();
    if (!javaBase.isOpen("sun.nio.ch", us) || !javaBase.isOpen("java.nio", us)) {
      throw new IllegalStateException(
          "Spark needs JDK internals opened on Java 17+: start the JVM with " + FLAGS
              + " (spark-submit adds them; see README.md)");
    }
  }
}
