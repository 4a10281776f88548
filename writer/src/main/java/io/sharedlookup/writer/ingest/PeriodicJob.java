package io.sharedlookup.writer.ingest;

/**
 * A job the ingest loop runs every so often between polls ({@link PeriodicJobs} knows when each is due). On the ingest
 * thread, so a job may use the consumer; what it throws reaches the loop's catches, as a failed poll's would.
 */
@FunctionalInterface
interface PeriodicJob {
    /** Runs the job; {@code nowNanos} is the time of this run ({@link System#nanoTime}). */
    void run(long nowNanos);

    /** Reading started at {@code nowNanos} (every partition known and positioned); nothing to do for most jobs. */
    default void started(long nowNanos) {}
}
