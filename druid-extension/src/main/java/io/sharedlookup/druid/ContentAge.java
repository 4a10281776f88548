package io.sharedlookup.druid;

import io.sharedlookup.reader.LookupStatus;
import java.time.Instant;

/**
 * How old a namespace's content is, for {@code maxStaleness} and introspection: now minus the last time the content was
 * known current with its topic, {@link LookupStatus#currentAsOf()}. A live writer moves that time on at every health
 * check (every few seconds) through its heartbeat, quiet topic or not; a writer that stopped, or that cannot reach
 * Kafka, no longer does, and the age grows from its last word.
 *
 * <p>The newest such time this lookup has seen stands while the store stops saying (a status file replaced, a
 * namespace being rebuilt), so the age never goes back. Never seen: the age is unknown.
 */
final class ContentAge {
    /** The newest time (epoch ms) the content was known current, or -1. */
    private volatile long lastKnownCurrent = -1;

    /** When the content was last known current as of {@code status} (epoch ms), or -1 when never known. */
    long knownCurrentAt(LookupStatus status) {
        long known = millis(status.currentAsOf());
        long last = lastKnownCurrent;
        if (known > last) {
            lastKnownCurrent = known; // a race only loses a time that the next call finds again
            return known;
        }
        return last;
    }

    /** The content's age at {@code nowMillis} (0 when its time is ahead of this node's clock), or -1 when unknown. */
    long ageMillis(LookupStatus status, long nowMillis) {
        long at = knownCurrentAt(status);
        return at < 0 ? -1 : Math.max(0, nowMillis - at);
    }

    private static long millis(Instant instant) {
        return instant == null ? -1 : instant.toEpochMilli();
    }
}
