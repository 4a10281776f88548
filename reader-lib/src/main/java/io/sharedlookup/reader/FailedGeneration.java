package io.sharedlookup.reader;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A published generation that could not be opened, and when to try it again. Opening maps files before it can fail
 * (a reverse index missing, a file truncated), and a failed try's mappings are released only by the garbage
 * collector, which a reader that allocates almost nothing rarely runs: retried at every refresh, they would pile up
 * towards the kernel's limit on mappings. So the same generation is retried after a delay that doubles up to
 * {@link #LONGEST_DELAY_NANOS}, however often the writer rewrites its manifest (every checkpoint does); another
 * generation is tried at once. Used by the refresh thread only.
 */
final class FailedGeneration {
    private static final long FIRST_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long LONGEST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private Object generation;
    private long delayNanos;
    private long retryAtNanos;

    /** Whether {@code named} (see {@code PublishedGeneration.identity}) failed and its next try is not due yet. */
    boolean waiting(Object named) {
        return generation != null && generation.equals(named) && System.nanoTime() - retryAtNanos < 0;
    }

    /** Opening {@code named} failed. */
    void failed(Object named) {
        delayNanos =
                Objects.equals(generation, named) ? Math.min(2 * delayNanos, LONGEST_DELAY_NANOS) : FIRST_DELAY_NANOS;
        generation = named;
        retryAtNanos = System.nanoTime() + delayNanos;
    }

    /** A generation was opened. */
    void clear() {
        generation = null;
    }
}
