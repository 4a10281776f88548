package io.sharedlookup.writer.namespace;

import java.util.Map;

/** Per topic, the consumer's position on each partition: the next offset to read, i.e. what has been applied. */
@FunctionalInterface
public interface Positions {
    Map<Integer, Long> of(String topic);

    /**
     * When these positions were last known to be current: now while the broker answers, the last time it did while
     * it does not. Stored with the offsets ({@code updated.at}), it is what a later start measures against the topic's
     * {@code delete.retention.ms}: deletes compacted away after that moment could have been missed.
     */
    default long currentAsOfMillis() {
        return System.currentTimeMillis();
    }
}
