package io.sharedlookup.writer.namespace;

/**
 * A namespace's last error as {@code /namespaces} shows it ({@code lastError}), and whether its topic is paused
 * because of it (state {@code STALLED}). Set by whichever part of the sink failed; cleared when that part succeeds
 * again, or when a record is stored after a stall.
 */
final class LastError {
    private String error;
    /** Whether the topic is paused because this namespace could not take a record, and until when (nanoTime). */
    private boolean stalled;
    private long stalledUntilNanos;

    String get() {
        return error;
    }

    void set(String error) {
        this.error = error;
    }

    void clear() {
        error = null;
    }

    /** The namespace cannot take the record now: the topic pauses, and the status says STALLED meanwhile. */
    StalledException stall(String error, long retryMillis) {
        this.error = error;
        stalled = true;
        stalledUntilNanos = System.nanoTime() + retryMillis * 1_000_000L;
        return new StalledException(error, retryMillis);
    }

    /** A record was stored: the error that paused the topic, if any, is over. */
    void recordStored() {
        if (stalled) {
            stalled = false;
            error = null;
        }
    }

    /** Whether the topic is still paused for a stall at {@code nowNanos}. */
    boolean stalledAt(long nowNanos) {
        return stalled && nowNanos - stalledUntilNanos < 0;
    }
}
