package io.sharedlookup.writer.ingest;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A record that the first namespaces of its topic took (applied, or skipped as bad for them) before the next one
 * stalled on it, or needed a rebuild that could not start: the consumer reads it again, and it then goes only to the
 * namespaces that did not take it. Giving it to the others again would count it for them twice (a tombstone, a skip,
 * an entry in their skipped-records list). At most one record per partition: the one its count stopped at.
 * Used by the ingest thread only.
 */
final class PartlyTaken {
    /** Record {@code offset} was taken by the first {@code namespaces} namespaces, {@code applied} by any of them. */
    record Taken(long offset, int namespaces, boolean applied) {}

    private final Map<TopicPartition, Taken> byPartition = new HashMap<>();

    /** The count of {@code tp} stopped at record {@code offset}, which the first {@code namespaces} had taken. */
    void remember(TopicPartition tp, long offset, int namespaces, boolean applied) {
        if (namespaces == 0) {
            byPartition.remove(tp); // none took it: read again, it goes to all
        } else {
            byPartition.put(tp, new Taken(offset, namespaces, applied));
        }
    }

    /**
     * What the first namespaces did with record {@code offset} of {@code tp} before it was read again, forgotten once a
     * record at or past it is read; null when none took it.
     */
    Taken take(TopicPartition tp, long offset) {
        if (byPartition.isEmpty()) {
            return null; // the usual case: one look per record, nothing more
        }
        Taken taken = byPartition.get(tp);
        if (taken == null || offset < taken.offset()) {
            return null;
        }
        byPartition.remove(tp); // read again, or gone from the log meanwhile (the read went past it)
        return offset == taken.offset() ? taken : null;
    }

    /** The topic is read again from its beginning into new generations: every record goes to every namespace. */
    void forget(String topic) {
        byPartition.keySet().removeIf(tp -> tp.topic().equals(topic));
    }
}
