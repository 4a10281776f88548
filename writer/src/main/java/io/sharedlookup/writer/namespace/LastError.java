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

    void clear() {
        error = null;
        stalled = false;
    }

    /**
     * A step failed (a checkpoint, a publish, growth; {@code error} starts with the step's own prefix): shown unless
     * a stall is, whose message says what to do about the cause they most likely share (a full volume refuses the
     * manifest and the bigger generation too). Only a new stall replaces a stall's message, so that it does not
     * alternate with a step's every time that step is retried.
     */
    void stepFailed(String error) {
        if (!stalled) {
            this.error = error;
        }
    }

    /**
     * The step whose errors start with {@code prefix} succeeded: its error, when it is the one shown, is over. Not
     * while a stall is on: a stall's message is over only when what the stall waited for is done ({@link #stallOver}).
     */
    void stepSucceeded(String prefix) {
        if (!stalled && error != null && error.startsWith(prefix)) {
            error = null;
        }
    }

    /** The namespace cannot take the record now: the topic pauses, and the status says STALLED meanwhile. */
    StalledException stall(String error, long retryMillis) {
        this.error = error;
        stalled = true;
        stalledUntilNanos = System.nanoTime() + retryMillis * 1_000_000L;
        return new StalledException(error, retryMillis);
    }

    /**
     * What the topic was paused for was done (a record stored, a key removed, the generation the records wait for
     * created): the error that paused it, if any, is over.
     */
    void stallOver() {
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
