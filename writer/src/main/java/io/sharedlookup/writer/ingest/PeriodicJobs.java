package io.sharedlookup.writer.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * The ingest loop's schedule: which {@link PeriodicJob}s it runs between polls, how often, and when each last ran.
 * A duty cycle rather than a timer thread, so that every job runs on the ingest thread, between batches, where the
 * consumer and the namespaces may be used. Jobs due together run in the order they were added. Ingest thread only.
 */
final class PeriodicJobs {
    private final List<Due> jobs = new ArrayList<>();

    private static final class Due {
        final PeriodicJob job;
        final long periodNanos;
        /** Whether its first run waits a period after reading starts (else it runs at the first cycle). */
        final boolean afterStart;

        long last;

        Due(PeriodicJob job, long periodNanos, boolean afterStart) {
            this.job = job;
            this.periodNanos = periodNanos;
            this.afterStart = afterStart;
        }
    }

    /** Adds a job run every {@code periodNanos}, the first time at the first cycle. */
    PeriodicJobs every(long periodNanos, PeriodicJob job) {
        jobs.add(new Due(job, periodNanos, false));
        return this;
    }

    /** Adds a job run every {@code periodNanos}, the first time a period after reading started ({@link #started}). */
    PeriodicJobs everyAfterStart(long periodNanos, PeriodicJob job) {
        jobs.add(new Due(job, periodNanos, true));
        return this;
    }

    /**
     * Reading started at {@code nowNanos}: the jobs added with {@link #everyAfterStart} count their period from it,
     * and every job is told ({@link PeriodicJob#started}).
     */
    void started(long nowNanos) {
        for (Due due : jobs) {
            if (due.afterStart) {
                due.last = nowNanos;
            }
            due.job.started(nowNanos);
        }
    }

    /** Runs the jobs that are due now; a job counts as run even when it throws (tried again a period later). */
    void runDue() {
        long now = System.nanoTime();
        for (Due due : jobs) {
            if (now - due.last >= due.periodNanos) {
                due.last = now;
                due.job.run(now);
            }
        }
    }
}
