package io.sharedlookup.internal.store;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a WARN (or an ERROR) at most once per interval and counts what it suppressed, so a flood of identical problems
 * (bad records, a stuck generation, a step retried every poll) cannot flood the log.
 */
public final class RateLimitedLog {
    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, long intervalMillis) {
        this.logger = logger;
        this.intervalNanos = intervalMillis * 1_000_000L;
    }

    public void warn(String format, Object... args) {
        log(false, format, args);
    }

    public void error(String format, Object... args) {
        log(true, format, args);
    }

    private void log(boolean error, String format, Object... args) {
        long now = System.nanoTime();
        long allowed = nextAllowed.get();
        if ((allowed == Long.MIN_VALUE || now - allowed >= 0) && nextAllowed.compareAndSet(allowed, now + intervalNanos)) {
            long skipped = suppressed.getAndSet(0);
            String line = skipped > 0 ? format + " ({} similar messages suppressed)" : format;
            Object[] values = skipped > 0 ? append(args, skipped) : args;
            if (error) {
                logger.error(line, values);
            } else {
                logger.warn(line, values);
            }
        } else {
            suppressed.incrementAndGet();
        }
    }

    private static Object[] append(Object[] args, Object last) {
        Object[] out = java.util.Arrays.copyOf(args, args.length + 1);
        // Keep a trailing Throwable last so slf4j still prints its stack trace.
        if (args.length > 0 && args[args.length - 1] instanceof Throwable t) {
            out[args.length - 1] = last;
            out[args.length] = t;
        } else {
            out[args.length] = last;
        }
        return out;
    }
}
