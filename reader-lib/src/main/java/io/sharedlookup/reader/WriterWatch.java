package io.sharedlookup.reader;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.WriterLiveness;
import io.sharedlookup.internal.store.WriterLiveness.State;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one namespace's writer heartbeat for a reader: looked at by the refresh thread at every refresh, it logs one
 * WARN when the writer stops being alive and one INFO when it comes back, and makes {@link LookupStatus} snapshots.
 */
final class WriterWatch {
    private static final Logger LOG = LoggerFactory.getLogger(WriterWatch.class);

    private final String namespace;
    private final WriterLiveness liveness;
    private final long liveWaitNanos;
    /** The state last logged about (refresh thread only). */
    private State said = State.UNKNOWN;

    /**
     * Looks at the heartbeat once at once, so that a lookup's first wait already knows whether the writer is alive.
     *
     * @param liveWaitNanos how long waits for a segment mid-change go on while the writer is alive
     */
    WriterWatch(String namespace, WriterLiveness liveness, long liveWaitNanos) {
        this.namespace = namespace;
        this.liveness = liveness;
        this.liveWaitNanos = liveWaitNanos;
        observe();
    }

    /** Makes {@code generation}'s waits follow this writer's liveness; returns it. */
    PublishedGeneration follow(PublishedGeneration generation) {
        return generation.followWriter(liveness, liveWaitNanos);
    }

    WriterLiveness liveness() {
        return liveness;
    }

    /** From the refresh thread: looks at the heartbeat and says when the writer stopped or came back. Never throws. */
    void observe() {
        try {
            State now = liveness.observe();
            if (now == State.NOT_ALIVE && said != State.NOT_ALIVE && liveness.stoppedCleanly()) {
                // A clean stop (a restart, a deploy) is not a fault: said, but not as a warning.
                LOG.info(
                        "Namespace '{}': its writer stopped cleanly; lookups keep serving the published content, "
                                + "which follows the topic again once a writer runs",
                        namespace);
            } else if (now == State.NOT_ALIVE && said != State.NOT_ALIVE) {
                long seen = liveness.lastSeenAliveMillis();
                LOG.warn(
                        "Namespace '{}': its writer is not alive (heartbeat last seen moving {}); lookups keep "
                                + "serving the published content, which no longer follows the topic, and a lookup meeting a "
                                + "segment left mid-change gives up after the store's lockTimeout",
                        namespace,
                        seen < 0 ? "never by this reader" : "at " + Instant.ofEpochMilli(seen));
            } else if (now == State.ALIVE && said == State.NOT_ALIVE) {
                LOG.info("Namespace '{}': its writer is alive again", namespace);
            }
            said = now;
        } catch (RuntimeException e) {
            LOG.debug("Namespace '{}': cannot read the writer's heartbeat: {}", namespace, e.toString());
        }
    }

    /** A snapshot of the namespace's freshness; {@code manifest}'s {@code updated.at} stands in for an older writer. */
    LookupStatus status(Manifest manifest) {
        State state = liveness.state();
        long seen = liveness.lastSeenAliveMillis();
        long asOf = Math.max(liveness.currentAsOfMillis(), manifest == null ? -1 : manifest.updatedAtMillis());
        return new LookupStatus(
                LookupStatus.WriterState.valueOf(state.name()),
                seen < 0 ? null : Instant.ofEpochMilli(seen),
                asOf <= 0 ? null : Instant.ofEpochMilli(asOf),
                liveness.lagRecords());
    }
}
