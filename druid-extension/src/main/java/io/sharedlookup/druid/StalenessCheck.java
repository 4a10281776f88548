package io.sharedlookup.druid;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.druid.error.DruidException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a lookup's {@link MaxStaleness}: queries fail, with one line naming the namespace, the content's age and the
 * writer's last heartbeat, while the namespace's content is older than the bound.
 *
 * <p>The age is the {@link ContentAge}: now minus the last time the content was known current with its topic (the
 * writer's {@code currentAsOf}, moved on every few seconds while it is live). When the store stops saying (a writer killed, a
 * status file unreadable), the last such time this lookup saw stands: the age then grows from there and fails only
 * once it is over the bound. A lookup that never saw one cannot prove its content fresh and fails, saying so.
 *
 * <p>Cheap per lookup: the status is read at most every {@link #recheckNanos} (a second, less for small bounds), and
 * between reads a call costs one {@link System#nanoTime()} and two volatile reads, allocating nothing.
 */
final class StalenessCheck {
    private static final Logger LOG = LoggerFactory.getLogger(StalenessCheck.class);
    private static final long MAX_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String namespace;
    private final MaxStaleness max;
    private final long recheckNanos;
    private final Object recheck = new Object();
    private volatile long recheckAtNanos;
    /** Why queries fail now, or null while the content is fresh enough. */
    @Nullable
    private volatile String stale;

    private final ContentAge age;

    StalenessCheck(String namespace, MaxStaleness max, ContentAge age) {
        this.namespace = namespace;
        this.max = max;
        this.age = age;
        // A quarter of the bound, so that a small bound is not overshot by much; a second at most.
        this.recheckNanos = Math.min(MAX_RECHECK_NANOS, TimeUnit.MILLISECONDS.toNanos(max.millis()) / 4);
        this.recheckAtNanos = System.nanoTime(); // the first call reads the status
    }

    MaxStaleness max() {
        return max;
    }

    /**
     * Passes while {@code lookup}'s content is fresh enough, as of the last status read.
     *
     * @throws DruidException (service unavailable) saying how stale the content is
     */
    void check(Lookup lookup) {
        if (System.nanoTime() - recheckAtNanos >= 0) {
            recheck(lookup);
        }
        String reason = stale;
        if (reason != null) {
            throw DruidException.forPersona(DruidException.Persona.OPERATOR)
                    .ofCategory(DruidException.Category.SERVICE_UNAVAILABLE)
                    .build("%s", reason);
        }
    }

    private void recheck(Lookup lookup) {
        synchronized (recheck) {
            long now = System.nanoTime();
            if (now - recheckAtNanos < 0) {
                return; // another thread read it meanwhile
            }
            String before = stale;
            String after = staleness(lookup.status(), System.currentTimeMillis());
            stale = after;
            recheckAtNanos = now + recheckNanos;
            if (after != null && before == null) {
                LOG.warn("{}", after);
            } else if (after == null && before != null) {
                LOG.info(
                        "sharedLookup '{}': its content is within maxStaleness {} again; queries use it again",
                        namespace,
                        max);
            }
        }
    }

    /**
     * Why queries must fail given {@code status} at {@code nowMillis}, or null when the content is fresh enough. Also
     * what introspection reports as {@code stale}.
     */
    @Nullable
    String staleness(LookupStatus status, long nowMillis) {
        long asOf = age.knownCurrentAt(status);
        if (asOf < 0) {
            return "sharedLookup '" + namespace + "' has \"maxStaleness\": \"" + max + "\" but the store does not say "
                    + "when the namespace was last current with its topic (" + status + "): upgrade its writer, or "
                    + "remove maxStaleness from the lookup spec";
        }
        long ageMillis = Math.max(0, nowMillis - asOf);
        if (ageMillis <= max.millis()) {
            return null;
        }
        Instant seen = status.writerLastSeen();
        return "sharedLookup '" + namespace + "' is stale: its content was last known current with the topic at "
                + Instant.ofEpochMilli(asOf) + ", " + Duration.ofSeconds(ageMillis / 1000) + " ago, over its "
                + "maxStaleness " + max + "; the writer's heartbeat was last seen "
                + (seen == null ? "never by this node" : "at " + seen) + " (writer " + status.writer() + ", lag "
                + (status.lagRecords() < 0 ? "unknown" : status.lagRecords() + " records")
                + "): queries using it fail until the writer is current again";
    }
}
