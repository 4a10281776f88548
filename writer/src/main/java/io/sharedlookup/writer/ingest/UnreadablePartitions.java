package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.Applied;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls that fail because one partition's records cannot be read. Kafka's consumer fails every poll until it is moved
 * past the record or the partition is paused, and the writer reads every topic with one consumer: left alone, one
 * damaged partition stops every namespace (seen on a real broker: a batch whose checksum no longer matched stopped
 * all topics for good, while {@code /health} said ok).
 *
 * <ul>
 *   <li>A <b>damaged record batch</b> (the consumer finds that its checksum or size does not match: the broker's
 *       copy is corrupt) is fetched once more, to rule out damage in transit, then skipped one offset at a time (the
 *       consumer names where the batch starts, not where it ends), each offset counted in
 *       {@code sharedlookup_writer_corrupt_records_total} and logged at a rate-limited WARN with topic, partition and
 *       offset. The updates it held are missing from the namespace until their keys are written again or the
 *       namespace is rebuilt; the partition's later records, and every other topic, flow on.</li>
 *   <li>Every <b>other failure to read one partition</b> skips nothing: a batch whose length field is damaged, or
 *       the broker finding its own log corrupt there (the batch's extent is unknown: skipping would walk offset by
 *       offset through what may be the rest of a segment, or past the batch to where the broker finds no next one
 *       and the partition stops without an error), a compression codec the JVM cannot load, read permission taken
 *       away. That topic is paused and fetched again later, as when its namespace
 *       cannot take a record; other topics flow on, and the topic's namespace is not ready meanwhile.</li>
 * </ul>
 *
 * <p>The consumer names the partition only in its messages (Kafka 4.x wording), so they are matched against the
 * assigned partitions; a failure that names none is left to the caller, which retries the poll. Owned by the ingest
 * thread.
 */
final class UnreadablePartitions {
    private static final Logger log = LoggerFactory.getLogger(UnreadablePartitions.class);
    /** How the consumer ({@code CompletedFetch}) words a partition whose next record cannot be read. */
    private static final String FETCH_FAILED = "Received exception when fetching the next record from ";
    /** How it words the cause when a record batch fails its checksum or size check. */
    private static final String BATCH_INVALID = "Record batch for partition ";
    /**
     * How it words a batch whose length field is too small to be one: where the batch really ends is then unknown, so
     * is where the next one starts.
     */
    private static final String DAMAGED_LENGTH = "Record batch is corrupt (the size ";
    /** What to do about a partition whose log cannot be read past a point. */
    private static final String REPAIR =
            "; repair the partition, e.g. move its leadership to a replica with an intact " + "copy";
    /** How it ({@code FetchCollector}) words the broker's own CORRUPT_MESSAGE answer. */
    private static final String BROKER_CORRUPT = "Encountered corrupt message when fetching offset ";

    private final Consumer<byte[], byte[]> consumer;
    private final PartitionOffsets offsets;
    private final Function<String, List<String>> namespacesOf;
    private final BatchApplier.Stall stall;
    private final WriterMetrics metrics;
    /** Per partition, so that one partition's lines never hide another's. */
    private final Map<TopicPartition, Warnings> warnings = new HashMap<>();
    /** Per partition, the first offset of a damaged batch fetched once so far: the next fetch decides. */
    private final Map<TopicPartition, Long> damagedOnce = new HashMap<>();
    /** Per partition, the first offset of the damaged batch being skipped (seen damaged in two fetches). */
    private final Map<TopicPartition, Long> skipping = new HashMap<>();

    UnreadablePartitions(
            Consumer<byte[], byte[]> consumer,
            PartitionOffsets offsets,
            Function<String, List<String>> namespacesOf,
            BatchApplier.Stall stall,
            WriterMetrics metrics) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.namespacesOf = namespacesOf;
        this.stall = stall;
        this.metrics = metrics;
    }

    /**
     * One partition's next record that cannot be read, and why.
     *
     * @param damagedBatchStart the first offset of the record batch the consumer found damaged, or -1 when the
     *                          failure is another one
     */
    record Unreadable(TopicPartition partition, long damagedBatchStart, String cause) {}

    /** What {@code e} says cannot be read, when it names one of the {@code assigned} partitions. */
    static Optional<Unreadable> of(KafkaException e, Collection<TopicPartition> assigned) {
        String message = String.valueOf(e.getMessage());
        String cause = e.getCause() == null
                ? "no cause given"
                : String.valueOf(e.getCause().getMessage());
        cause = cause.lines().findFirst().orElse("");
        for (TopicPartition tp : assigned) {
            // Topic names have no spaces, so "<topic>-<partition>. " and "<topic>-<partition> at" name one partition.
            if (message.startsWith(FETCH_FAILED + tp + ". ")) {
                String batchAt = BATCH_INVALID + tp + " at offset ";
                if (!saysBatchInvalid(cause, batchAt)) {
                    return Optional.of(new Unreadable(tp, -1, cause));
                }
                long start = firstNumber(cause.substring(batchAt.length()));
                if (cause.contains(DAMAGED_LENGTH)) {
                    // Skipping its offsets would end past the batch where the broker, following the damaged length,
                    // finds no next batch: the partition would stop for good, silently (seen on a real broker).
                    return Optional.of(new Unreadable(
                            tp,
                            -1,
                            "the record batch from offset " + start + " has a damaged length (" + cause + ")"
                                    + REPAIR));
                }
                return Optional.of(new Unreadable(tp, start, cause));
            }
            if (message.startsWith(BROKER_CORRUPT) && message.endsWith(" for topic-partition " + tp)) {
                return Optional.of(
                        new Unreadable(tp, -1, "the broker finds its log corrupt there (" + message + ")" + REPAIR));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether the consumer's {@code cause} says a record batch of the partition named in {@code batchAt} (the words
     * before the batch's offset) failed its checksum or size check. Read from the words because Kafka offers no type
     * for it: the consumer ({@code CompletedFetch}, kafka-clients 4.3) catches its {@code CorruptRecordException} and
     * rethrows a plain {@link KafkaException} with only the message, wrapped in another plain one that names the
     * partition; {@code UnreadablePartitionsTest} pins the wording.
     */
    private static boolean saysBatchInvalid(String cause, String batchAt) {
        return cause.startsWith(batchAt) && cause.contains(" is invalid");
    }

    private static long firstNumber(String s) {
        int end = 0;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return end == 0 ? -1 : Long.parseLong(s.substring(0, end));
    }

    /**
     * Handles {@code e} if it says one assigned partition's next record cannot be read, or that some of the topics
     * may no longer be read.
     *
     * @return false when it does not (the caller treats it as a broker problem)
     */
    boolean handle(KafkaException e) {
        if (e instanceof TopicAuthorizationException denied) {
            return notAuthorized(denied);
        }
        Optional<Unreadable> found = of(e, consumer.assignment());
        if (found.isEmpty()) {
            return false;
        }
        Unreadable unreadable = found.get();
        TopicPartition tp = unreadable.partition();
        long at = consumer.position(tp);
        long start = unreadable.damagedBatchStart();
        if (start < 0) {
            fetchAgain(tp, at); // once the pause is over
            stall.stall(
                    tp.topic(),
                    "cannot read partition " + tp.partition() + " at offset " + at + ": " + unreadable.cause(),
                    Applied.Stalled.PAUSE_MILLIS);
            return true;
        }
        if (!Long.valueOf(start).equals(skipping.get(tp))) {
            if (!Long.valueOf(start).equals(damagedOnce.put(tp, start))) {
                warnings(tp)
                        .fetchedAgain()
                        .warn(
                                "Partition {}: the record batch from offset {} arrived damaged ({}); fetching "
                                        + "it once more",
                                tp,
                                start,
                                unreadable.cause());
                fetchAgain(tp, at);
                return true;
            }
            damagedOnce.remove(tp);
            skipping.put(tp, start);
        }
        // Offsets before the batch's first one that the position still points at (aborted transactions' records,
        // transaction markers) hold nothing to apply: the consumer would have returned such records first. The
        // first offset is not covered by the checksum, so it is believed only up to the partition's end.
        long skipped = start > at && start < offsets.latestEnd(tp) ? start : at;
        consumer.seek(tp, skipped + 1);
        offsets.applied(tp, skipped + 1);
        namespacesOf
                .apply(tp.topic())
                .forEach(ns -> metrics.corruptRecords.labelValues(ns).inc());
        warnings(tp)
                .skipped()
                .warn(
                        "Skipped offset {} of {}: the broker's copy of its record batch is damaged ({}); the "
                                + "update it held is missing until its key is written again, or until the namespace is rebuilt once "
                                + "the partition is repaired",
                        skipped,
                        tp,
                        unreadable.cause());
        return true;
    }

    /** A partition's two rate-limited lines: a damaged batch fetched again, an offset skipped. */
    private record Warnings(RateLimitedLog fetchedAgain, RateLimitedLog skipped) {}

    private Warnings warnings(TopicPartition tp) {
        return warnings.computeIfAbsent(
                tp, p -> new Warnings(new RateLimitedLog(log, 5_000), new RateLimitedLog(log, 5_000)));
    }

    /** The topic is read again from its beginning (a rebuild): what was seen damaged is to be seen again. */
    void forget(String topic) {
        damagedOnce.keySet().removeIf(tp -> tp.topic().equals(topic));
        skipping.keySet().removeIf(tp -> tp.topic().equals(topic));
    }

    /** Read permission taken away from some topics: those pause and are tried again; the others flow on. */
    private boolean notAuthorized(TopicAuthorizationException denied) {
        boolean ours = false;
        for (String topic : denied.unauthorizedTopics()) {
            if (offsets.of(topic) != null) { // one of ours, with its partitions known
                ours = true;
                stall.stall(
                        topic,
                        "not authorized to read topic '" + topic + "': grant the writer's Kafka principal "
                                + "READ and DESCRIBE on it",
                        Applied.Stalled.PAUSE_MILLIS);
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
