package io.sharedlookup.internal.store;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

/**
 * Logs a WARN (or an ERROR) at most once per interval and counts what it suppressed, so a flood of identical problems
 * (bad records, a stuck generation, a step retried every poll) cannot flood the log.
 *
 * <p>What it suppressed is never lost: the next message logged carries the count, and when none comes, a summary with
 * the count and the last suppressed message is logged once the interval is over (within a minute at most). The
 * summaries of every instance in the JVM are logged by one shared daemon thread, started the first time anything is
 * suppressed.
 */
public final class RateLimitedLog {
    /** The longest a suppressed message waits to be summarised, whatever the interval. */
    static final long MAX_SUMMARY_DELAY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();
    /** The last suppressed message, for the summary: its level, format and arguments. */
    private final AtomicReference<Suppressed> lastSuppressed = new AtomicReference<>();

    private record Suppressed(boolean error, String format, Object[] args) {}

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
        if ((allowed == Long.MIN_VALUE || now - allowed >= 0)
                && nextAllowed.compareAndSet(allowed, now + intervalNanos)) {
            long skipped = suppressed.getAndSet(0);
            String line = skipped > 0 ? format + " ({} similar messages suppressed)" : format;
            Object[] values = skipped > 0 ? append(args, skipped) : args;
            emit(error, line, values);
        } else {
            lastSuppressed.set(new Suppressed(error, format, args));
            if (suppressed.incrementAndGet() == 1) {
                // The first of a run: make sure its count is logged even if no message comes after it.
                // Half an interval after this one ends, so that a message logged as the interval ends carries the
                // count itself rather than racing the summary for it.
                long delay = Math.min(Math.max(0, allowed - now) + intervalNanos / 2, MAX_SUMMARY_DELAY_NANOS);
                Summaries.THREAD.schedule(this::summarise, delay, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Logs what was suppressed and not yet reported by a later message; nothing when that message took the count. */
    void summarise() {
        Suppressed last = lastSuppressed.get();
        long skipped = suppressed.getAndSet(0);
        if (skipped == 0 || last == null) {
            return;
        }
        String message =
                MessageFormatter.arrayFormat(last.format(), last.args()).getMessage();
        long millis = TimeUnit.NANOSECONDS.toMillis(intervalNanos);
        emit(last.error(), "{} similar message{} suppressed (one is logged per {}); the last: {}", new Object[] {
            skipped,
            skipped == 1 ? " was" : "s were",
            millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms",
            message
        });
    }

    private void emit(boolean error, String line, Object[] values) {
        if (error) {
            logger.error(line, values);
        } else {
            logger.warn(line, values);
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

    /** The one thread that logs summaries for every instance: created on first use (holder idiom), a daemon. */
    private static final class Summaries {
        static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shared-lookup-log-summaries");
            t.setDaemon(true);
            return t;
        });
    }
}
