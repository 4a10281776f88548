package io.sharedlookup.reader;

import java.time.Instant;
import java.util.Objects;

/**
 * How fresh a namespace is, as a reader sees it ({@link Lookup#status()}): an immutable snapshot.
 *
 * @param writer         whether the namespace's writer is alive, as judged from its heartbeat by this reader's own
 *                       clock (see {@link WriterState})
 * @param writerLastSeen when this reader last saw the writer's heartbeat move, or null when it never did
 * @param currentAsOf    the last time the writer's offsets had reached the end of the namespace's topic: the content
 *                       holds every record written before about then; null when unknown
 * @param lagRecords     how many records of the topic the writer had yet to apply when it last said, or -1 unknown
 */
public record LookupStatus(WriterState writer, Instant writerLastSeen, Instant currentAsOf, long lagRecords) {
    /** What a reader can say about a namespace's writer. */
    public enum WriterState {
        /** Its heartbeat moved within the last ~1.5 s of this reader's clock. */
        ALIVE,
        /** Its heartbeat has not moved for longer (killed, stopped, paused for long, or stopped cleanly). */
        NOT_ALIVE,
        /** The store has no heartbeat for it (a writer from before heartbeats, or none yet). */
        UNKNOWN
    }

    public LookupStatus {
        Objects.requireNonNull(writer, "writer");
    }

    /** Whether the writer is known alive. */
    public boolean writerAlive() {
        return writer == WriterState.ALIVE;
    }

    @Override
    public String toString() {
        return "writer " + writer + (writerLastSeen == null ? "" : ", last seen alive " + writerLastSeen)
                + ", content current as of " + (currentAsOf == null ? "unknown" : currentAsOf.toString())
                + ", lag " + (lagRecords < 0 ? "unknown" : lagRecords + " records");
    }
}
