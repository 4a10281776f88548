package io.sharedlookup.writer.namespace;

import java.util.ArrayDeque;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records a rebuild read while it sampled its topic, held back until the generation sized from that sample exists
 * and then applied in the order they were read, each giving back its share of the {@link SampleBudget} once applied.
 * Kept apart from {@link NamespaceIngest} because these records outlive the sample: a stall can leave some of them
 * held for the next record or batch, and no generation may be published before they are all in it.
 */
final class HeldBackRecords {
    /** The ingest's own logger: operators filter and configure these messages under {@link NamespaceIngest}'s name. */
    private static final Logger log = LoggerFactory.getLogger(NamespaceIngest.class);

    private final ArrayDeque<String[]> records = new ArrayDeque<>();
    private final SampleBudget sampleBudget;
    private final TargetWrites writes;
    private final String nsLabel;

    HeldBackRecords(SampleBudget sampleBudget, TargetWrites writes, String namespace) {
        this.sampleBudget = sampleBudget;
        this.writes = writes;
        this.nsLabel = namespace;
    }

    /** Whether every record held back has been applied. */
    boolean isEmpty() {
        return records.isEmpty();
    }

    /** Holds {@code sampled} ({key, value} pairs, in the order read), after any still held. */
    void addAll(Collection<String[]> sampled) {
        records.addAll(sampled);
    }

    /** Drops every record held (a rebuild starts over), giving their share of the sample budget back. */
    void clear() {
        records.forEach(r -> sampleBudget.release(SampleBudget.cost(r[0], r[1])));
        records.clear();
    }

    /**
     * Applies the records held back for the sample, in order, each removed once applied. Their offsets count as
     * applied already (they were read and held), so none may be lost: when one cannot be applied now (a stall), it
     * and those after it stay held back for the next record or batch, and no generation is published before they
     * are all in it.
     *
     * @return {@link Applied#DONE}, or the stall or rebuild that stopped them
     */
    Applied apply(Positions positions) {
        while (!records.isEmpty()) {
            String[] record = records.peekFirst();
            Applied applied = writes.apply(record[0], record[1], positions);
            if (applied.halts()) {
                return applied;
            }
            if (applied instanceof Applied.Skipped skipped && skipped.error()) {
                // counted in TargetWrites; its offset is no longer known here
                log.error("Namespace '{}': skipped a record read while sampling: {}", nsLabel, skipped.reason());
            }
            records.pollFirst();
            sampleBudget.release(SampleBudget.cost(record[0], record[1]));
        }
        return Applied.DONE;
    }
}
