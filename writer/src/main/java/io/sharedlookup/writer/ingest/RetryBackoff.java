package io.sharedlookup.writer.ingest;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest loop's wait when Kafka cannot do something (no answer, a topic missing, a bootstrap host that does not
 * resolve): says why on every namespace's status, then waits, longer each time from 0.5 s up to 10 s, until the next
 * try or a stop. The wait starts short again once a poll goes through ({@link #reset}). Logs as the {@link Ingestor};
 * ingest thread only.
 */
final class RetryBackoff {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);
    private static final long FIRST_MILLIS = 500;
    private static final long MAX_MILLIS = 10_000;

    private final IngestStatus status;
    private final StuckPartitions stuck;
    /** Opened by a stop: ends a wait at once. */
    private final CountDownLatch stopSignal;

    private long millis = FIRST_MILLIS;

    RetryBackoff(IngestStatus status, StuckPartitions stuck, CountDownLatch stopSignal) {
        this.status = status;
        this.stuck = stuck;
        this.stopSignal = stopSignal;
    }

    /** A poll went through: the next problem waits the shortest time again. */
    void reset() {
        millis = FIRST_MILLIS;
    }

    /**
     * The broker could not do something: says so (/ready, log), then waits.
     *
     * @param reading what reads through the consumer, null until it is made
     * @return false when the wait was interrupted (ingestion is to stop)
     */
    boolean retryLater(String problem, Exception logged, Reading reading) {
        if (logged == null) {
            log.warn("{}; retrying in {} ms", problem, millis);
        } else {
            log.warn("{}; retrying in {} ms", problem, millis, logged);
        }
        return backOff(problem, false, reading);
    }

    /**
     * Says why namespaces are not ready (/ready, timed if Kafka is {@code unreachable}), then waits.
     *
     * @param reading what reads through the consumer, null until it is made
     * @return false when the wait was interrupted (ingestion is to stop)
     */
    boolean backOff(String problem, boolean unreachable, Reading reading) {
        status.brokerProblem(problem, unreachable);
        if (reading != null) {
            reading.offsets.readingInterrupted();
        }
        stuck.restart(); // no poll moved anything meanwhile: that is this problem, not a partition stuck
        status.publish();
        boolean uninterrupted = true;
        try {
            stopSignal.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            uninterrupted = false;
        }
        millis = Math.min(MAX_MILLIS, millis * 2);
        return uninterrupted;
    }
}
