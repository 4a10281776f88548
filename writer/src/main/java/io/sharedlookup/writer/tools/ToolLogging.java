package io.sharedlookup.writer.tools;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import java.util.Iterator;
import org.slf4j.LoggerFactory;

/**
 * The operator commands print data on stdout (a TSV dump, a value, a diff): their log goes to stderr, never into it.
 * A reader-side INFO line (a namespace switching to a generation the writer just published) used to land in the middle
 * of a {@code dump > users.tsv}.
 */
public final class ToolLogging {
    private ToolLogging() {}

    /**
     * Points every console appender of the logging backend at stderr (or at stdout again, {@code toStderr} false).
     * Does nothing under another backend than logback, which keeps its own configuration.
     */
    public static void consoleTo(boolean toStderr) {
        // Looked for before slf4j is asked, so that a class path without any backend stays without its warning.
        if (onClassPath("ch.qos.logback.classic.LoggerContext")
                && LoggerFactory.getILoggerFactory().getClass().getName().startsWith("ch.qos.logback.")) {
            Logback.consoleTo(toStderr ? "System.err" : "System.out");
        }
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, ToolLogging.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Touches logback's classes only when it is the backend: a class path without it never loads this class. */
    private static final class Logback {
        static void consoleTo(String target) {
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            for (ch.qos.logback.classic.Logger logger : context.getLoggerList()) {
                for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
                    if (it.next() instanceof ConsoleAppender<ILoggingEvent> console) {
                        console.stop();
                        console.setTarget(target);
                        console.start();
                    }
                }
            }
        }
    }
}
