package io.sharedlookup.writer.namespace;

/**
 * The namespace cannot take the record now (disk full, growth failing): the ingest thread pauses its topic's
 * partitions for {@link #retryMillis()} and reads the record again. The record was not applied.
 */
public final class StalledException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The system property that shortens {@link #PAUSE_MILLIS} in tests. */
    public static final String PAUSE_PROPERTY = "sharedlookup.writer.stallPauseMillis";

    /**
     * How long a topic pauses when its namespace cannot take a record and cannot say when it will: 30 s. The system
     * property {@value #PAUSE_PROPERTY} (read once, when the class loads) sets it shorter, down to 1 s, for tests that
     * must see a topic come back after its pause, in a writer JVM of their own, rather than wait out half a minute; it
     * is not an operator setting.
     */
    // At least 1 s: a pause of 0 or a few ms would have the ingest loop re-read at full speed a record it cannot take.
    public static final long PAUSE_MILLIS = Math.max(1_000, Long.getLong(PAUSE_PROPERTY, 30_000));

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
