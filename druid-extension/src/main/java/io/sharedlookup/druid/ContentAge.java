package io.sharedlookup.druid;

import io.sharedlookup.reader.LookupStatus;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * How old a namespace's content is, for {@code maxStaleness} and introspection: now minus the last time the content was
 * known current with its topic. Known current at:
 * <ul>
 * <li>the writer's stamp, {@link LookupStatus#currentAsOf()}: the last time its offsets reached the topic's end;</li>
 * <li>the writer's last heartbeat, while the writer is alive, reports no lag, and its stamp is younger than
 * {@link #VOUCH_WINDOW_MILLIS}. The writer restamps a quiet topic only every 10 minutes (at most, sooner for a short
 * {@code delete.retention.ms}), so the stamp alone would call a healthy writer's quiet namespace up to 10 minutes
 * stale. A stamp older than the window means the writer has not been current with Kafka since (the broker away), and
 * then only the stamp counts, whatever the writer says of its lag.</li>
 * </ul>
 * The newest such time this lookup has seen stands while the store stops saying (a writer killed: it is then the
 * writer's last heartbeat while it was current), so the age keeps growing from there. Never seen: the age is unknown.
 */
final class ContentAge {
    /** The writer's restamp period of a quiet topic (Generations.STAMP_REFRESH_MILLIS, 10 min), plus a minute. */
    static final long VOUCH_WINDOW_MILLIS = TimeUnit.MINUTES.toMillis(11);

    /** The newest time (epoch ms) the content was known current, or -1. */
    private volatile long lastKnownCurrent = -1;

    /**
     * When the content was last known current as of {@code status} (epoch ms), or -1 when never known.
     *
     * @param nowMillis this node's clock now
     */
    long knownCurrentAt(LookupStatus status, long nowMillis) {
        long known = millis(status.currentAsOf());
        Instant seen = status.writerLastSeen();
        if (status.writerAlive() && status.lagRecords() == 0 && seen != null && known >= 0
                && nowMillis - known <= VOUCH_WINDOW_MILLIS) {
            known = Math.max(known, seen.toEpochMilli());
        }
        long last = lastKnownCurrent;
        if (known > last) {
            lastKnownCurrent = known; // a race only loses a time that the next call finds again
            return known;
        }
        return last;
    }

    /** The content's age at {@code nowMillis} (0 when its time is ahead of this node's clock), or -1 when unknown. */
    long ageMillis(LookupStatus status, long nowMillis) {
        long at = knownCurrentAt(status, nowMillis);
        return at < 0 ? -1 : Math.max(0, nowMillis - at);
    }

    private static long millis(Instant instant) {
        return instant == null ? -1 : instant.toEpochMilli();
    }
}
