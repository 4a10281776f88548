package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.NoRoomForEntryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When {@link Growth} tries again after a failure, and how that failure is reported: it is recorded as the namespace's
 * {@link LastError#GROWTH} step, logged (rate-limited where retries come every few seconds), and growth waits until a
 * retry time that is a {@link System#nanoTime()}, so that a stepped wall clock moves none. Kept apart from
 * {@link Growth}, which decides when to grow and how, so that the retry policy reads in one place.
 */
final class GrowthRetry {
    /** Growth's own logger: operators filter and configure these messages under {@link Growth}'s name. */
    private static final Logger log = LoggerFactory.getLogger(Growth.class);
    /** How soon growth is tried again after a failure other than a full disk. */
    static final long GROWTH_RETRY_MILLIS = 30_000;
    /**
     * How soon a topic paused because the file system refused to extend a generation is tried again: a failed try
     * costs one refused allocation, and the writer should carry on soon after space is freed.
     */
    static final long DISK_FULL_RETRY_MILLIS = 2_000;

    private final LastError lastError;
    private final String nsLabel;
    private final RateLimitedLog growthFailures = new RateLimitedLog(log, 60_000);
    /** Growth is not tried again before this {@link System#nanoTime()} (a stepped wall clock cannot move it). */
    private long nextGrowthAttemptNanos = System.nanoTime();

    GrowthRetry(LastError lastError, String namespace) {
        this.lastError = lastError;
        this.nsLabel = namespace;
    }

    /** Whether growth waits for its retry time at {@code nowNanos} (the status then says STALLED). */
    boolean deferred(long nowNanos) {
        return nowNanos - nextGrowthAttemptNanos < 0;
    }

    /** How long until growth's retry time, at least 1 ms: the pause of a stall that waits for it. */
    long millisUntilRetry() {
        return Math.max(1, (nextGrowthAttemptNanos - System.nanoTime()) / 1_000_000L);
    }

    /** Forgets the retry time: growth may be tried at once (before a rebuild). */
    void reset() {
        nextGrowthAttemptNanos = System.nanoTime();
    }

    /** Growth is not tried again for {@code millis}. */
    void defer(long millis) {
        nextGrowthAttemptNanos = System.nanoTime() + millis * 1_000_000L;
    }

    /** Growth failed with {@code error}: kept for a stall, and shown unless a stall's message is. */
    String failed(String error) {
        lastError.stepFailed(LastError.GROWTH, error);
        return error;
    }

    /**
     * A background copy was abandoned because {@code why}: growth is retried after {@link #GROWTH_RETRY_MILLIS}.
     */
    void abandoned(String why) {
        defer(GROWTH_RETRY_MILLIS);
        String error = failed("growth abandoned (retrying in " + GROWTH_RETRY_MILLIS / 1000 + " s): " + why);
        log.warn("Namespace '{}': {}", nsLabel, error);
    }

    /** A finished copy could not be published ({@code e}): growth is retried after {@link #GROWTH_RETRY_MILLIS}. */
    void publishFailed(Exception e) {
        defer(GROWTH_RETRY_MILLIS);
        String error = failed("cannot publish the grown generation: " + e.getMessage());
        log.error("Namespace '{}': {}", nsLabel, error);
    }

    /**
     * Growth failed: when the file system refused the bigger file (disk full), it is tried again as soon as a
     * refused extension is, since freeing space is all it takes and a refused try costs nothing; otherwise after
     * {@link #GROWTH_RETRY_MILLIS}. Logged at most once a minute (a full disk retries every few seconds).
     *
     * @return the error, also shown as the namespace's last error unless a stall's is
     */
    String growthFailed(String what, Throwable e) {
        long retryMillis = retryMillis(e);
        defer(retryMillis);
        String error = failed(what + " (retrying in " + retryMillis / 1000 + " s): " + e.getMessage());
        if (e instanceof NoRoomForEntryException) {
            // A stored entry no generation readers can map would take: it is kept, in the old generation, rather than
            // dropped by a copy; the namespace stalls once that one is full. Every retry says so.
            log.error(
                    "Namespace '{}': {}; the generation is kept as it is. Free disk, or shorten that value in the "
                            + "topic; lower --max-value-bytes so that such values are skipped before they are stored",
                    nsLabel,
                    error);
        } else {
            growthFailures.warn("Namespace '{}': {}", nsLabel, error);
        }
        return error;
    }

    /** How soon growth that failed with {@code e} is tried again: soon for a full disk, later otherwise. */
    static long retryMillis(Throwable e) {
        return GenerationFile.ioCause(e) != null ? DISK_FULL_RETRY_MILLIS : GROWTH_RETRY_MILLIS;
    }
}
