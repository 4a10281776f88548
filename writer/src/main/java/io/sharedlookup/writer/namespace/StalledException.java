package io.sharedlookup.writer.namespace;

/**
 * The namespace cannot take the record now (disk full, growth failing): the ingest thread pauses its topic's
 * partitions for {@link #retryMillis()} and reads the record again. The record was not applied.
 */
public final class StalledException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** How long a topic pauses when its namespace cannot take a record and cannot say when it will. */
    public static final long PAUSE_MILLIS = 30_000;

    private final long retryMillis;

    StalledException(String message, long retryMillis) {
        super(message, null, false, false);
        this.retryMillis = retryMillis;
    }

    /** How long the topic pauses before the record is tried again. */
    public long retryMillis() {
        return retryMillis;
    }
}
