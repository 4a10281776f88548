package io.sharedlookup.reader;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.WriterLiveness;

/** The public API's exceptions for a lookup call that failed: never an internal type. */
final class CallFailures {
    private CallFailures() {}

    /**
     * A damaged file (or one truncated under the reader) as {@link SharedLookupException}. A mapping fault seen here
     * surfaced past PublishedGeneration's own catch (the JVM may throw it a little after the read): the generation is
     * marked faulted, so that the next refresh opens the published generation again, as after a fault caught there.
     */
    static SharedLookupException damaged(String namespace, PublishedGeneration g, Throwable e) {
        Throwable why = e instanceof InternalError fault ? g.markFaulted(fault) : e;
        return new SharedLookupException(
                "Namespace '" + namespace + "', generation " + g.number() + ": " + why.getMessage(), e);
    }

    /** A wait for a segment mid-change that gave up, saying what the writer's heartbeat said meanwhile. */
    static LookupTimeoutException timedOut(
            String namespace, PublishedGeneration g, LockTimeoutException e, WriterLiveness liveness) {
        String writer = switch (liveness.state()) {
            case ALIVE -> " (its writer is alive but held the segment past the store's liveWriterWait)";
            case NOT_ALIVE -> " (its writer's heartbeat has stopped)";
            case UNKNOWN -> " (the store has no writer heartbeat to go by)";
        };
        return new LookupTimeoutException(
                "Namespace '" + namespace + "', generation " + g.number() + ": " + e.getMessage() + writer);
    }
}
