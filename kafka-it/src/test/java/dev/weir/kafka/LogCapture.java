package dev.weir.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The warnings and errors this JVM logs while it is open (log4j 2, the logging Spark brings), as
 * {@code logger: message} lines. Closing it removes its appender.
 */
final class LogCapture implements AutoCloseable {
  private final List<String> events = new ArrayList<>();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final AbstractAppender appender;

  LogCapture() {
    appender = new AbstractAppender("capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        synchronized (events) {
          events.add(event.getLoggerName() + ": " + event.getMessage().getFormattedMessage());
        }
      }
    };
    appender.start();
    root().addAppender(appender, Level.WARN, null);
    context.updateLoggers();
  }

  private LoggerConfig root() {
    return context.getConfiguration().getRootLogger();
  }

  /** The lines captured so far that contain {@code text}. */
  List<String> containing(String text) {
    synchronized (events) {
      return events.stream().filter(e -> e.contains(text)).toList();
    }
  }

  @Override
  public void close() {
    root().removeAppender(appender.getName());
    context.updateLoggers();
    appender.stop();
  }
}
