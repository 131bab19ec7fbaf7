package dev.weir.metrics;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * The events one class logs while this is open, kept by a fake appender, so that a test can
 * assert what was logged. Production code logs through SLF4J; the tests' binding is Log4j 2
 * (log4j-slf4j2-impl), so the appender is attached to the Log4j logger of the same name.
 */
final class CapturedLogs implements AutoCloseable {
  private final Logger logger;
  private final List<LogEvent> events = new CopyOnWriteArrayList<>();
  private final AbstractAppender appender;

  CapturedLogs(Class<?> source) {
    logger = (Logger) LogManager.getLogger(source);
    appender = new AbstractAppender("captured-" + source.getName(), null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        // Log4j reuses mutable events; keep a copy.
        events.add(event.toImmutable());
      }
    };
    appender.start();
    logger.addAppender(appender);
  }

  List<LogEvent> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
    appender.stop();
  }
}
