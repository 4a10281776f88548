package io.sharedlookup.writer.namespace;

/**
 * What became of a record a namespace was asked to apply ({@link NamespaceIngest#apply}), or of the work a namespace
 * does after a poll batch ({@link NamespaceIngest#afterBatch}): done, or one of the three things only the ingest thread
 * can act on. These are outcomes, not failures: a real failure (an I/O error nobody expects, a defect) is still thrown.
 */
public sealed interface Applied permits Applied.Done, Applied.Skipped, Applied.Stalled, Applied.RebuildNeeded {
    /** The record is in the generation records go to (put, or removed for a tombstone); or nothing stopped the work. */
    Done DONE = new Done();

    /** See {@link #DONE}, the only instance needed. */
    record Done() implements Applied {}

    /**
     * The record could not be stored (counted by its namespace); the partition carries on with the next one.
     *
     * @param reason what was wrong with it, for the log and the skipped-records list
     * @param error  a value the operator must act on (it is lost to readers): logged at ERROR rather than WARN, and
     *               {@code reason} says what to change
     */
    record Skipped(String reason, boolean error) implements Applied {}

    /**
     * The namespace cannot take the record now (disk full, growth failing): the ingest thread pauses its topic's
     * partitions for {@code retryMillis} and reads the record again. The record was not applied.
     *
     * @param reason      what the namespace waits for, shown as its last error
     * @param retryMillis how long the topic pauses before the record is tried again
     */
    record Stalled(String reason, long retryMillis) implements Applied {
        /** The system property that shortens {@link #PAUSE_MILLIS} in tests. */
        public static final String PAUSE_PROPERTY = "sharedlookup.writer.stallPauseMillis";

        /**
         * How long a topic pauses when its namespace cannot take a record and cannot say when it will: 30 s. The
         * system property {@value #PAUSE_PROPERTY} (read once, when the class loads) sets it shorter, down to 1 s, for
         * tests that must see a topic come back after its pause, in a writer JVM of their own, rather than wait out
         * half a minute; it is not an operator setting.
         */
        // At least 1 s: a pause of 0 or a few ms would have the ingest loop re-read at full speed a record it cannot
        // take.
        public static final long PAUSE_MILLIS = Math.max(1_000, Long.getLong(PAUSE_PROPERTY, 30_000));
    }

    /**
     * The namespace's generation is unusable and cannot be copied: the ingest thread must
     * {@link NamespaceIngest#rebuild} it from the beginning of the topic. The record that failed was not applied.
     *
     * @param reason why, for the log and the namespace's status
     */
    record RebuildNeeded(String reason) implements Applied {}

    /** Whether the ingest thread stops applying the topic's records here: {@link Stalled} or {@link RebuildNeeded}. */
    default boolean halts() {
        return this instanceof Stalled || this instanceof RebuildNeeded;
    }
}
