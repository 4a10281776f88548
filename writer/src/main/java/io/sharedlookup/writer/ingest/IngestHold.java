package io.sharedlookup.writer.ingest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long the ingest thread has been away from its loop, and what that means: past {@code away} the statuses say
 * ingestion is held up, and where ({@link #awayReason}); past {@code --ingest-hold-limit} ingestion counts as failed
 * ({@link #heldTooLong}), which {@code /health} turns into 503. The thread says when it is back ({@link #backInLoop});
 * everything else is safe from any thread. Logs as the {@link Ingestor}, whose thread it watches.
 */
final class IngestHold {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);
    /** How often a hold past the limit is looked for when nothing asks (at most; a tenth of the limit if shorter). */
    private static final long HOLD_WATCH_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Thread thread;
    private final long awayNanos;
    /** {@code --ingest-hold-limit}: away from its loop this long, ingestion counts as failed; 0 never. */
    private final long holdLimitNanos;
    /** True while nothing is to be said of a hold: ingestion stopping, failed or its thread dead. */
    private final BooleanSupplier over;
    /** When the ingest thread last went round its loop ({@link System#nanoTime}). */
    private volatile long loopedAt = System.nanoTime();
    /**
     * Guards {@link #holdReported} and the writes of {@link #loopedAt}: a hold's ERROR is logged only while the thread
     * is still away, once, and before the INFO that it came back.
     */
    private final Object holdReport = new Object();
    /** The {@link #loopedAt} of the last hold over that limit that was logged. */
    private long holdReported;
    /** Looks for a hold past the limit now and then, so that it is logged where nothing polls {@code /health}. */
    private ScheduledExecutorService holdWatch;

    /**
     * @param over true while nothing is to be said of a hold (stopping, failed, or the thread dead)
     */
    IngestHold(Thread thread, Duration away, long holdLimitSeconds, BooleanSupplier over) {
        this.thread = thread;
        this.awayNanos = away.toNanos();
        this.holdLimitNanos = TimeUnit.SECONDS.toNanos(holdLimitSeconds);
        this.over = over;
    }

    /** Starts looking for a hold past the limit now and then (when there is a limit). */
    void start() {
        if (holdLimitNanos > 0) {
            holdWatch = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread watch = new Thread(task, "shared-lookup-ingest-watch");
                watch.setDaemon(true);
                return watch;
            });
            long period = Math.min(HOLD_WATCH_NANOS, holdLimitNanos / 10);
            holdWatch.scheduleWithFixedDelay(this::watchForAHold, period, period, TimeUnit.NANOSECONDS);
        }
    }

    void stop() {
        if (holdWatch != null) {
            holdWatch.shutdown(); // stopping makes its next look a no-op
        }
    }

    /**
     * A hold past the limit: whatever holds the thread (a deadlock, a volume that never answers, a defect), a restart
     * is what can help, so it is reported as a failure, which {@code /health} turns into 503. Logged once per hold, by
     * the first caller that sees it (a liveness probe, or the watch within a tenth of the limit and at most 10 s): the
     * held thread cannot say it.
     */
    Optional<String> heldTooLong() {
        long since = loopedAt;
        long away = System.nanoTime() - since;
        if (holdLimitNanos == 0 || away < holdLimitNanos || over.getAsBoolean()) {
            return Optional.empty();
        }
        String why = notBackFor(away) + ", over --ingest-hold-limit (" + TimeUnit.NANOSECONDS.toSeconds(holdLimitNanos)
                + " s): the ingest thread is in " + whereIngesting();
        synchronized (holdReport) {
            if (loopedAt != since) {
                return Optional.empty(); // it came back while this was being said
            }
            if (holdReported != since) {
                holdReported = since;
                log.error("{}; /health answers 503 from now on, so that a supervisor restarts the writer", why);
            }
        }
        return Optional.of(why);
    }

    /** The watch's look: a scheduled task that threw would silently never run again. */
    private void watchForAHold() {
        try {
            heldTooLong();
        } catch (RuntimeException e) {
            log.warn("Cannot check whether the ingest thread is held up: {}", e.toString());
        }
    }

    /** What each status says instead of its own once the thread has been away longer than {@code away}; else null. */
    String awayReason() {
        long away = System.nanoTime() - loopedAt;
        if (away < awayNanos || over.getAsBoolean()) {
            return null;
        }
        return notBackFor(away) + " (the ingest thread is in " + whereIngesting() + "); readers keep what is published";
    }

    /** How /ready and /health begin to say the ingest thread has been away from its loop for {@code awayNanos}. */
    private static String notBackFor(long awayNanos) {
        return "ingestion has not come back to its loop for " + TimeUnit.NANOSECONDS.toSeconds(awayNanos) + " s";
    }

    /** The ingest thread's innermost frame, and the innermost of this project's code under it. */
    private String whereIngesting() {
        StackTraceElement[] stack = thread.getStackTrace();
        if (stack.length == 0) {
            return "an unknown place";
        }
        String top = stack[0].getClassName() + "." + stack[0].getMethodName();
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().startsWith("io.sharedlookup.")) {
                String own = frame.getClassName() + "." + frame.getMethodName();
                return own.equals(top) ? top : top + ", called from " + own;
            }
        }
        return top;
    }

    /**
     * The ingest thread is back in its loop, or past a step of a start that may wait on Kafka several times (each
     * bounded, not their sum): the hold clock starts again, and a hold that was reported is said to be over.
     */
    void backInLoop() {
        long now = System.nanoTime();
        long heldNanos = -1;
        synchronized (holdReport) {
            if (holdReported == loopedAt) {
                heldNanos = now - loopedAt;
            }
            loopedAt = now;
        }
        if (heldNanos >= 0) {
            log.info("Ingestion is back in its loop after {} s", TimeUnit.NANOSECONDS.toSeconds(heldNanos));
        }
    }
}
