package io.sharedlookup.reader;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A manifest whose generation could not be opened, and when to try it again. Opening maps files before it can fail
 * (a reverse index missing, a file truncated), and a failed try's mappings are released only by the garbage
 * collector, which a reader that allocates almost nothing rarely runs: retried at every refresh, they would pile up
 * towards the kernel's limit on mappings. So the same manifest is retried after a delay that doubles up to
 * {@link #LONGEST_DELAY_NANOS}; a changed manifest is tried at once. Used by the refresh thread only.
 */
final class FailedManifest {
    private static final long FIRST_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long LONGEST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private byte[] bytes;
    private long delayNanos;
    private long retryAtNanos;

    /** Whether {@code manifest} is the one that failed and its next try is not due yet. */
    boolean waiting(byte[] manifest) {
        return bytes != null && Arrays.equals(bytes, manifest) && System.nanoTime() - retryAtNanos < 0;
    }

    /** Opening what {@code manifest} names failed. */
    void failed(byte[] manifest) {
        delayNanos = Arrays.equals(bytes, manifest) ? Math.min(2 * delayNanos, LONGEST_DELAY_NANOS) : FIRST_DELAY_NANOS;
        bytes = manifest;
        retryAtNanos = System.nanoTime() + delayNanos;
    }

    /** A manifest was followed. */
    void clear() {
        bytes = null;
    }
}
