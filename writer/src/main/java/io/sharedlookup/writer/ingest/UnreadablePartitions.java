package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.StalledException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls that fail because one partition's records cannot be read. Kafka's consumer throws the same error at every
 * poll until it is moved past the record, and the writer reads every topic with one consumer: left alone, one
 * damaged partition stops every namespace (seen on a real broker: a batch whose checksum no longer matched stopped
 * all topics for good, while {@code /health} said ok).
 *
 * <ul>
 *   <li>A <b>damaged record batch</b> (its checksum or size no longer matches: the broker's copy is corrupt) is
 *       fetched once more, to rule out damage in transit, then skipped one offset at a time (the consumer names
 *       where the batch starts, not where it ends), each offset counted in
 *       {@code sharedlookup_writer_corrupt_records_total} and logged at a rate-limited WARN with topic, partition
 *       and offset. The updates it held are missing from the namespace until their keys are written again or the
 *       namespace is rebuilt; the partition's later records, and every other topic, flow on.</li>
 *   <li>Any <b>other failure to read one partition</b> (a compression codec the JVM cannot load, say), and <b>read
 *       permission taken away</b> from a topic, are no reason to skip anything: that topic is paused and fetched
 *       again later, as when its namespace cannot take a record. Other topics flow on; the topic's namespace stops
 *       being ready.</li>
 * </ul>
 *
 * <p>The consumer names the partition only in its message, so the message is matched against the assigned
 * partitions. A failure that names none is left to the caller (which retries the poll). Owned by the ingest thread.
 */
final class UnreadablePartitions {
    private static final Logger log = LoggerFactory.getLogger(UnreadablePartitions.class);
    /** How Kafka's consumer (4.x, {@code CompletedFetch}) words a partition whose next record cannot be read. */
    private static final String FETCH_FAILED = "Received exception when fetching the next record from ";
    /** How it words the cause when a record batch fails its checksum or size check. */
    private static final String BATCH_INVALID = "Record batch for partition ";

    private final Consumer<byte[], byte[]> consumer;
    private final PartitionOffsets offsets;
    private final Map<String, String> namespaceOfTopic;
    private final BatchApplier.Stall stall;
    private final WriterMetrics metrics;
    private final RateLimitedLog skips = new RateLimitedLog(log, 5_000);
    /** The damaged offset last fetched once more, or last skipped: where a skip needs no second fetch. */
    private TopicPartition lastDamaged;
    private long lastDamagedOffset = -1;

    UnreadablePartitions(Consumer<byte[], byte[]> consumer, PartitionOffsets offsets,
                         Map<String, String> namespaceOfTopic, BatchApplier.Stall stall, WriterMetrics metrics) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.namespaceOfTopic = namespaceOfTopic;
        this.stall = stall;
        this.metrics = metrics;
    }

    /** What failed to be read, when {@code e} says one partition's next record could not be: its partition and cause. */
    record Unreadable(TopicPartition partition, boolean damagedBatch, String cause) {
    }

    static Optional<Unreadable> of(KafkaException e, Collection<TopicPartition> assigned) {
        String message = e.getMessage();
        if (message == null || !message.startsWith(FETCH_FAILED)) {
            return Optional.empty();
        }
        String cause = e.getCause() == null ? "no cause given" : String.valueOf(e.getCause().getMessage());
        cause = cause.lines().findFirst().orElse("");
        for (TopicPartition tp : assigned) {
            // Topic names may contain '-', but "<topic>-<partition>." names one assigned partition at most.
            if (message.startsWith(FETCH_FAILED + tp + ".")) {
                boolean damaged = cause.startsWith(BATCH_INVALID + tp + " at offset ") && cause.contains(" is invalid");
                return Optional.of(new Unreadable(tp, damaged, cause));
            }
        }
        return Optional.empty();
    }

    /**
     * Handles {@code e} if it says one assigned partition's next record cannot be read.
     *
     * @return false when it does not (the caller treats it as a broker problem)
     */
    boolean handle(KafkaException e) {
        if (e instanceof TopicAuthorizationException denied) {
            return notAuthorized(denied);
        }
        Optional<Unreadable> unreadable = of(e, consumer.assignment());
        if (unreadable.isEmpty()) {
            return false;
        }
        TopicPartition tp = unreadable.get().partition();
        long at = consumer.position(tp);
        if (!unreadable.get().damagedBatch()) {
            fetchAgain(tp, at); // once the pause is over
            stall.stall(tp.topic(), "cannot read partition " + tp.partition() + " at offset " + at + ": "
                    + unreadable.get().cause(), StalledException.PAUSE_MILLIS);
            return true;
        }
        boolean confirmed = tp.equals(lastDamaged) && (lastDamagedOffset == at || lastDamagedOffset == at - 1);
        lastDamaged = tp;
        lastDamagedOffset = at;
        if (!confirmed) {
            fetchAgain(tp, at);
            log.warn("Partition {} at offset {} arrived damaged ({}); fetching it once more", tp, at,
                    unreadable.get().cause());
            return true;
        }
        consumer.seek(tp, at + 1);
        offsets.applied(tp, at + 1);
        metrics.corruptRecords.labelValues(namespaceOfTopic.get(tp.topic())).inc();
        skips.warn("Skipped offset {} of {}: the broker's copy of its record batch is damaged ({}); the update it held "
                + "is missing until its key is written again or the namespace is rebuilt", at, tp,
                unreadable.get().cause());
        return true;
    }

    /** Read permission taken away from some topics: those pause and are tried again; the others flow on. */
    private boolean notAuthorized(TopicAuthorizationException denied) {
        boolean ours = false;
        for (String topic : denied.unauthorizedTopics()) {
            if (namespaceOfTopic.containsKey(topic)) {
                ours = true;
                stall.stall(topic, "not authorized to read topic '" + topic + "': grant the writer's Kafka principal "
                        + "READ and DESCRIBE on it", StalledException.PAUSE_MILLIS);
            }
        }
        return ours;
    }

    /**
     * Makes the next poll fetch {@code tp} from {@code at} again. A seek alone would not: the consumer keeps the failed
     * fetch while it matches the position, and throws it again. Assigning without the partition drops it; the other
     * partitions keep their positions and pauses.
     */
    private void fetchAgain(TopicPartition tp, long at) {
        Set<TopicPartition> assigned = new HashSet<>(consumer.assignment());
        assigned.remove(tp);
        consumer.assign(assigned);
        assigned.add(tp);
        consumer.assign(assigned);
        consumer.seek(tp, at);
    }
}
