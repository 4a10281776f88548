package io.sharedlookup.reader;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.WriterLiveness;

/** The public API's exceptions for a lookup call that failed: never an internal type. */
final class CallFailures {
    private CallFailures() {
    }

    /** A damaged file (or one truncated under the reader) as {@link SharedLookupException}. */
    static SharedLookupException damaged(String namespace, PublishedGeneration g, Throwable e) {
        return new SharedLookupException("Namespace '" + namespace + "', generation " + g.number() + ": "
                + (e instanceof InternalError ? "a file was truncated under this reader: " : "") + e.getMessage(), e);
    }

    /** A wait for a segment mid-change that gave up, saying what the writer's heartbeat said meanwhile. */
    static LookupTimeoutException timedOut(String namespace, PublishedGeneration g, LockTimeoutException e,
                                           WriterLiveness liveness) {
        String writer = switch (liveness.state()) {
            case ALIVE -> " (its writer is alive but held the segment past the store's liveWriterWait)";
            case NOT_ALIVE -> " (its writer's heartbeat has stopped)";
            case UNKNOWN -> " (the store has no writer heartbeat to go by)";
        };
        return new LookupTimeoutException("Namespace '" + namespace + "', generation " + g.number() + ": "
                + e.getMessage() + writer);
    }
}
