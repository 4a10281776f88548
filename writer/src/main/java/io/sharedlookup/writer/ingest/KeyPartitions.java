package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterMetrics;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Detects a key produced to more than one partition of its topic (a producer whose partitioner changed, or one that
 * picks partitions by hand). Kafka orders a key's records only within a partition: a host that saw the records
 * arrive keeps the newer value, a host that rebuilds from the topic applies one partition after the other and may
 * keep the older, so hosts can disagree with the same offsets. The writer still applies records in the order it reads
 * them; this only makes the problem visible: {@code sharedlookup_writer_keys_on_several_partitions_total} and a WARN
 * (at most one a minute) naming the key, the topic and both partitions with their offsets.
 *
 * <p>Each namespace has a {@link KeyPartitionTable} of {@link #SLOTS} slots (16 bytes each, 64 KiB) tracking a
 * hash-sampled subset of its keys, so the heap cost does not depend on the number of keys.
 */
final class KeyPartitions {
    private static final Logger log = LoggerFactory.getLogger(KeyPartitions.class);
    /** Slots per namespace: up to half of them in use, so at least 2,048 keys tracked. */
    static final int SLOTS = 4096;

    private static final int MAX_KEY_CHARS_LOGGED = 200;

    private final WriterMetrics metrics;
    private final Map<String, KeyPartitionTable> byNamespace = new HashMap<>();
    private final RateLimitedLog warnings = new RateLimitedLog(log, 60_000);

    KeyPartitions(WriterMetrics metrics) {
        this.metrics = metrics;
    }

    /** Notes that {@code key} of {@code namespace} was read from {@code topic}'s {@code partition} at {@code offset}. */
    void seen(String namespace, String key, String topic, int partition, long offset) {
        KeyPartitionTable table = byNamespace.computeIfAbsent(namespace, ns -> new KeyPartitionTable(SLOTS));
        KeyPartitionTable.Moved moved = table.seen(hash(key), partition, offset);
        if (moved == null) {
            return;
        }
        metrics.keysOnSeveralPartitions.labelValues(namespace).inc();
        String shown = key.length() > MAX_KEY_CHARS_LOGGED ? key.substring(0, MAX_KEY_CHARS_LOGGED) + "..." : key;
        warnings.warn(
                "Namespace '{}': key '{}' of topic '{}' was read from partition {} (offset {}) after partition {} "
                        + "(offset {}). Kafka orders a key's records only within one partition, so hosts can keep different "
                        + "values for it; produce every record of a key to one partition (fix the producer's partitioner), "
                        + "then produce the key again. Keys are sampled: about {} of them are watched",
                namespace,
                shown,
                topic,
                partition,
                offset,
                moved.previousPartition(),
                moved.previousOffset(),
                share(table.sampledShare()));
    }

    /**
     * Forgets the namespace's keys: after a rebuild its topic is read again from the beginning, maybe recreated with
     * another partition count, so a key read from another partition than before is no producer's fault.
     */
    void forget(String namespace) {
        byNamespace.remove(namespace);
    }

    private static String share(double share) {
        return share >= 1 ? "all" : "1 in " + Math.round(1 / share);
    }

    /** A 64-bit hash of the key's chars: the table needs well-spread bits, both for sampling and as fingerprints. */
    static long hash(String key) {
        long h = 0x6A09E667F3BCC908L ^ key.length();
        for (int i = 0, n = key.length(); i < n; i++) {
            h = (h ^ key.charAt(i)) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        // Final avalanche, so that every input bit reaches the low (sampling) bits and the high (slot) bits.
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ h >>> 33;
    }
}
