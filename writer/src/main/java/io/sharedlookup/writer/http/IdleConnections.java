package io.sharedlookup.writer.http;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Optional;

/**
 * The kept-alive connections waiting for their next request, longest idle first: at the connection cap the server
 * closes the first of them to make room, rather than refusing a new connection (a liveness probe's among them) while
 * clients merely hold connections open. Synchronized because connections may live on different event loops; the
 * calls are rare and brief.
 *
 * @param <C> a connection
 */
final class IdleConnections<C> {
    private final LinkedHashSet<C> idle = new LinkedHashSet<>();

    /** The connection has answered a request and waits for the next one: it goes last. */
    synchronized void idle(C connection) {
        idle.remove(connection);
        idle.add(connection);
    }

    /** The connection is receiving or answering a request, or closed: it is no one to close for room. */
    synchronized void busy(C connection) {
        idle.remove(connection);
    }

    /** Removes and returns the connection idle the longest, if any. */
    synchronized Optional<C> takeLongestIdle() {
        Iterator<C> it = idle.iterator();
        if (!it.hasNext()) {
            return Optional.empty();
        }
        C longest = it.next();
        it.remove();
        return Optional.of(longest);
    }
}
