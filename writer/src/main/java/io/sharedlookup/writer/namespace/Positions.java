package io.sharedlookup.writer.namespace;

import java.util.Map;

/** Per topic, the consumer's position on each partition: the next offset to read, i.e. what has been applied. */
@FunctionalInterface
public interface Positions {
    /** A time {@link #currentAsOfMillis} answers when the positions have not been current since the writer started. */
    long UNKNOWN = -1;

    Map<Integer, Long> of(String topic);

    /**
     * The last time the topic's positions had reached the end offsets the broker reported at that time (epoch
     * milliseconds), or {@link #UNKNOWN}. Stored with the offsets as {@code updated.at}, it is what a later start, or a
     * host seeded from a snapshot, measures against the topic's {@code delete.retention.ms}: deletes compacted away
     * after that moment could have been missed. Unknown here; the writer's consumer knows.
     */
    default long currentAsOfMillis(String topic) {
        return UNKNOWN;
    }
}
