package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.Applied;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.Positions;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one poll batch on the ingest thread: each record decoded ({@link RecordDecoder}) and applied, in order, to
 * every namespace its topic feeds ({@link TopicNamespaces}), each with its own value field; what was applied tracked
 * in {@link PartitionOffsets}. A bad record is counted, logged and skipped, for the namespaces it is bad for only (a
 * document that lacks one namespace's field is still applied to the others); a namespace that cannot take a record
 * has its topic paused or rebuilt by the ingest loop, and the record is read again, for the namespaces of the topic
 * that did not take it yet ({@link PartlyTaken}). A generation no reader maps yet is filled by several threads first
 * ({@link ParallelApplier}); a record counts as applied only once it is put.
 *
 * <p>A record is counted (read, a tombstone, a bad record with its entry in the skipped list) once per namespace, when
 * its outcome for that namespace is final: a bad record when decoded (it is never read again unless rebuilt), a
 * tombstone once removed, every record once done for all its namespaces. A stall sends the consumer back to a record
 * not yet applied, and a parallel pass hands records back: both are read again, and counted then, not before. A
 * rebuild reads the topic again into a new generation on purpose, and counts its records again.
 */
final class BatchApplier {
    private static final Logger log = LoggerFactory.getLogger(BatchApplier.class);
    /** A record that could not be decoded for a namespace: counted, logged and listed by {@link #decode} already. */
    private static final Applied NOT_DECODED = new Applied.Skipped("cannot be decoded for this namespace", false);

    /** Pauses a topic whose namespace cannot take records ({@code why}) for {@code pauseMillis}. */
    @FunctionalInterface
    interface Stall {
        void stall(String topic, String why, long pauseMillis);
    }

    private final Consumer<byte[], byte[]> consumer;
    private final TopicNamespaces byTopic;
    private final PartitionOffsets offsets;
    /** The offsets' positions, with how current they are: what a generation published mid-batch records. */
    private final Positions positions;

    private final TopicPauses pauses;
    private final Stall stall;
    private final WriterMetrics metrics;
    /** Per namespace, its decoder: each extracts its namespace's value field. */
    private final Map<NamespaceIngest, RecordDecoder> decoders = new IdentityHashMap<>();

    private final int maxValueBytes;
    private final RateLimitedLog badRecords = new RateLimitedLog(log, 5_000);
    private final KeyPartitions keyPartitions;
    private final ParallelApplier parallel;
    /** Records some namespaces of their topic took before another stalled on them: not given to those again. */
    private final PartlyTaken partlyTaken = new PartlyTaken();

    /**
     * @param reading       the consumer and the bookkeeping this applies through; its stalls pause a topic
     * @param maxValueBytes {@code --max-value-bytes}: a longer value is skipped
     * @param applyThreads  {@code --apply-threads}: how many threads fill a generation no reader maps yet
     */
    BatchApplier(Reading reading, int maxValueBytes, int applyThreads) {
        this.consumer = reading.consumer;
        this.byTopic = reading.byTopic;
        this.offsets = reading.offsets;
        this.positions = reading.positions;
        this.pauses = reading.pauses;
        this.stall = reading;
        this.metrics = reading.metrics;
        byTopic.all().forEach(s -> decoders.put(s, new RecordDecoder(s.binding().valueField())));
        this.maxValueBytes = maxValueBytes;
        this.keyPartitions = new KeyPartitions(metrics);
        this.parallel = new ParallelApplier(applyThreads);
    }

    /**
     * Forgets which partition each of the topic's keys was read from: its namespace is read again from the beginning,
     * maybe of a recreated topic with another partition count, where keys legitimately land on other partitions.
     */
    void forgetKeys(String topic) {
        byTopic.namespacesOf(topic).forEach(keyPartitions::forget);
        parallel.forget(topic); // and what appliers put ahead of a stall: the new generation has none of it
        partlyTaken.forget(topic);
    }

    /**
     * Applies one poll batch.
     *
     * @param rebuilds reads a topic again from its beginning when a namespace needs it; a {@link KafkaException} from
     *                 it (the rebuild cannot start now) stalls the topic instead
     */
    void apply(ConsumerRecords<byte[], byte[]> records, TopicRebuilds rebuilds) {
        Set<String> stalledNow = new HashSet<>();
        Set<String> rebuiltNow = new HashSet<>();
        Map<TopicPartition, ParallelApplier.Part> pass =
                parallel.run(records, this::onlyNamespaceOf, (ingest, r) -> decode(ingest, r, false));
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            String topic = tp.topic();
            ParallelApplier.Part part = pass.get(tp);
            if (part != null && part.removalsPut() > 0) { // final once put: counted here, never when read again
                metrics.tombstones
                        .labelValues(onlyNamespaceOf(topic).binding().namespace())
                        .inc(part.removalsPut());
            }
            if (rebuiltNow.contains(topic)) {
                continue; // every partition of it was just sent back to its beginning
            }
            if (stalledNow.contains(topic)) {
                consumer.seek(tp, list.get(0).offset());
                parallel.keepAhead(tp, part, 0, list);
                continue;
            }
            List<NamespaceIngest> namespaces = byTopic.of(topic);
            boolean whole = true;
            // Counted per batch, not per record: a labelled counter and a map update per record showed in profiles.
            long read = 0;
            long applied = 0;
            for (int i = 0; i < list.size(); i++) {
                ConsumerRecord<byte[], byte[]> r = list.get(i);
                // The first namespaces may have taken it already, before another one stalled on it.
                PartlyTaken.Taken earlier = partlyTaken.take(tp, r.offset());
                int taken = earlier == null ? 0 : earlier.namespaces();
                boolean any = earlier != null && earlier.applied();
                byte state = part != null ? part.state(i) : parallel.takeAhead(tp, r.offset());
                any |= state == ParallelApplier.APPLIED;
                Applied halt = null;
                if (state != ParallelApplier.APPLIED && state != ParallelApplier.SKIPPED) {
                    // never put into that generation again when an applier found it unusable: rebuilt (below)
                    halt = part != null ? part.unusable() : null;
                    // Not put by an applier (none ran, or it could not): applied here, in order.
                    for (; halt == null && taken < namespaces.size(); taken++) {
                        NamespaceIngest ingest = namespaces.get(taken);
                        Applied outcome = part != null
                                ? applyDecoded(ingest, r, part.decoded(i))
                                : applyRecord(ingest, r, positions, namespaces.size() > 1);
                        if (outcome.halts()) {
                            halt = outcome;
                            break; // not taken by this namespace: `taken` stays
                        }
                        any |= outcome instanceof Applied.Done;
                    }
                }
                if (halt instanceof Applied.Stalled stalled) {
                    // Not applied: read it again once the namespace can take it.
                    consumer.seek(tp, r.offset());
                    partlyTaken.remember(tp, r.offset(), taken, any);
                    parallel.keepAhead(tp, part, i + 1, list);
                    stalledNow.add(topic);
                    stall.stall(topic, stalled.reason(), stalled.retryMillis());
                    whole = false;
                    break;
                } else if (halt instanceof Applied.RebuildNeeded rebuild) {
                    // Not applied: the topic is read again from its beginning, or from here if that cannot start.
                    whole = false;
                    try {
                        rebuilds.rebuild(topic, rebuild.reason());
                        rebuiltNow.add(topic);
                    } catch (KafkaException unreachable) {
                        consumer.seek(tp, r.offset());
                        partlyTaken.remember(tp, r.offset(), taken, any);
                        parallel.keepAhead(tp, part, i + 1, list);
                        stalledNow.add(topic);
                        stall.stall(
                                topic,
                                rebuild.reason() + "; cannot rebuild now: " + unreachable.getMessage(),
                                Applied.Stalled.PAUSE_MILLIS);
                    }
                    break;
                }
                if (any) {
                    applied++;
                }
                read++; // done with for every namespace: a record read again after a stall was not counted before
                offsets.applied(tp, r.offset() + 1);
            }
            for (NamespaceIngest ingest : namespaces) {
                metrics.records.labelValues(ingest.binding().namespace()).inc(read);
                ingest.writeSkippedRecords(); // once per batch, only when it skipped any
            }
            offsets.countApplied(topic, applied);
            if (whole) {
                // The consumer's position may be past the last record (transaction markers, compaction gaps).
                offsets.appliedUpToPosition(tp);
                pauses.takingRecords(topic); // taking records again: a later stall is news
            }
        }
        // Partitions without records in this batch may still have moved past markers; everything before is applied.
        for (TopicPartition tp : consumer.assignment()) {
            if (!stalledNow.contains(tp.topic()) && !pauses.isPaused(tp.topic()) && offsets.isTracked(tp)) {
                offsets.appliedUpToPosition(tp);
            }
        }
    }

    /**
     * Decodes and applies one record to one namespace; problems with the record itself are counted, logged and
     * skipped for that namespace.
     *
     * @param shared whether the topic feeds other namespaces too (the log then says which one skipped the record)
     * @return what became of it ({@link #NOT_DECODED} when it could not be decoded for this namespace)
     */
    private Applied applyRecord(
            NamespaceIngest ingest, ConsumerRecord<byte[], byte[]> r, Positions positions, boolean shared) {
        String[] decoded = decode(ingest, r, shared);
        return decoded == null ? NOT_DECODED : applyDecoded(ingest, r, decoded);
    }

    /** A topic's namespace when it feeds only one (several are applied one by one), else null. */
    private NamespaceIngest onlyNamespaceOf(String topic) {
        List<NamespaceIngest> namespaces = byTopic.of(topic);
        return namespaces.size() == 1 ? namespaces.get(0) : null;
    }

    /**
     * Decodes one record for one namespace: {key, value (null: a tombstone)}, or null when the record is bad for it
     * (counted, logged and skipped).
     */
    private String[] decode(NamespaceIngest ingest, ConsumerRecord<byte[], byte[]> r, boolean shared) {
        String ns = ingest.binding().namespace();
        RecordDecoder decoder = decoders.get(ingest);
        String topic = r.topic();
        try {
            if (r.key() == null) {
                metrics.nullKeys.labelValues(ns).inc();
                ingest.skipped().add(r.partition(), r.offset(), "null key");
                badRecords.warn(
                        "Skipped a record with a null key at {}-{} offset {}", topic, r.partition(), r.offset());
                return null;
            }
            String key = decoder.key(r.key());
            keyPartitions.seen(ns, key, topic, r.partition(), r.offset());
            // Null: a tombstone, counted once removed (applyDecoded, ParallelApplier.Part#removalsPut), not here: a
            // stall before that reads it again.
            String value = null;
            if (r.value() != null && r.value().length > maxValueBytes) {
                metrics.oversize.labelValues(ns).inc();
                ingest.skipped()
                        .add(
                                r.partition(),
                                r.offset(),
                                "value of " + r.value().length + " bytes, over --max-value-bytes " + maxValueBytes);
                badRecords.warn(
                        "Skipped a value of {} bytes (over --max-value-bytes {}) at {}-{} offset {}",
                        r.value().length,
                        maxValueBytes,
                        topic,
                        r.partition(),
                        r.offset());
                return null;
            } else if (r.value() != null) {
                value = decoder.value(r.value());
            }
            return new String[] {key, value};
        } catch (RecordDecoder.DecodeException e) {
            metrics.decodeErrors.labelValues(ns).inc();
            ingest.skipped().add(r.partition(), r.offset(), "cannot be decoded: " + e.getMessage());
            badRecords.warn(
                    "Skipped a record that cannot be decoded at {}-{} offset {}: {}",
                    topic,
                    r.partition(),
                    r.offset(),
                    shared
                            ? e.getMessage() + " (for namespace '" + ns + "'; the topic's "
                                    + "other namespaces take it when it has their field)"
                            : e.getMessage());
        }
        return null;
    }

    /**
     * Applies a decoded record ({@link #decode}) to one namespace; one it cannot take is counted and skipped. A
     * tombstone is counted once applied: a stall before that reads it again.
     */
    private Applied applyDecoded(NamespaceIngest ingest, ConsumerRecord<byte[], byte[]> r, String[] decoded) {
        String topic = r.topic();
        Applied applied = ingest.apply(decoded[0], decoded[1], positions);
        if (applied instanceof Applied.Done && decoded[1] == null) {
            metrics.tombstones.labelValues(ingest.binding().namespace()).inc();
        } else if (applied instanceof Applied.Skipped skipped) {
            ingest.skipped().add(r.partition(), r.offset(), skipped.reason());
            if (skipped.error()) {
                badRecords.error(
                        "Skipped a record at {}-{} offset {}: {}", topic, r.partition(), r.offset(), skipped.reason());
            } else {
                badRecords.warn(
                        "Skipped a record at {}-{} offset {}: {}", topic, r.partition(), r.offset(), skipped.reason());
            }
        }
        return applied;
    }

    /** Ends the parallel appliers' threads; on the ingest thread, when ingestion stops. */
    void close() {
        parallel.close();
    }
}
