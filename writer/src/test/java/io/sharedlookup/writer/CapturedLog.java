package io.sharedlookup.writer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one class logs while a test runs, kept in memory (the tests' JVMs log through logback, the writer's
 * backend). Close it to stop capturing.
 */
public final class CapturedLog implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private CapturedLog(String loggerName) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    /** Starts capturing what {@code source}'s logger logs. */
    public static CapturedLog of(Class<?> source) {
        return new CapturedLog(source.getName());
    }

    /** Starts capturing what the logger of that name logs: for a class not visible from the test's package. */
    public static CapturedLog named(String loggerName) {
        return new CapturedLog(loggerName);
    }

    /** The formatted messages logged at WARN or above so far, oldest first. */
    public List<String> warnings() {
        List<ILoggingEvent> events;
        synchronized (appender) { // logback appends under the appender's own lock
            events = List.copyOf(appender.list);
        }
        return events.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
