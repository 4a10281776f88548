package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.ResumeDecision;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a topic again from its beginning into fresh generations of its namespaces, whatever the reason: a namespace
 * asked for it, the broker no longer has the positions, the topic was recreated, or its positions went too long
 * without being current ({@link CurrencyCheck}). It owns what a rebuild forgets (offsets, unreadable partitions, which
 * partition each key came from) and each topic's delete.retention.ms as last read, which a rebuild reads afresh. Logs
 * as the {@link Ingestor}, whose loop it serves; used by the ingest thread only.
 */
final class TopicRebuilds {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);

    private final Reading reading;
    private final Consumer<byte[], byte[]> consumer;
    private final PartitionOffsets offsets;
    private final TopicFacts topicFacts;
    private final TopicWatch watch;
    private final UnreadablePartitions unreadable;
    private final BatchApplier batch;
    private final IngestStatus status;
    /** Per topic, its delete.retention.ms (Kafka's default, a day, when it cannot be read), as last read. */
    private final Map<String, Long> deleteRetentionMillis = new HashMap<>();

    TopicRebuilds(
            Reading reading,
            TopicFacts topicFacts,
            TopicWatch watch,
            UnreadablePartitions unreadable,
            BatchApplier batch,
            IngestStatus status) {
        this.reading = reading;
        this.consumer = reading.consumer;
        this.offsets = reading.offsets;
        this.topicFacts = topicFacts;
        this.watch = watch;
        this.unreadable = unreadable;
        this.batch = batch;
        this.status = status;
    }

    /**
     * Rebuilds a topic's namespace from the beginning of all its partitions, as at a start without anything to
     * resume: caught up again once the end offsets of now are reached. Throws {@link KafkaException} when the broker
     * cannot say where the topic begins and ends now; the topic is then left as it was.
     */
    void rebuild(String topic, String why) {
        List<TopicPartition> tps = offsets.of(topic);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(10));
        long endAskedAt = System.currentTimeMillis();
        Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(10));
        log.warn(
                "Topic '{}': {}; rebuilding namespace(s) {} from the beginning (log now {} to {})",
                topic,
                why,
                reading.byTopic.namespacesOf(topic),
                PartitionOffsets.byPartition(begin, topic),
                PartitionOffsets.byPartition(end, topic));
        // The topic may be another one by now (deleted and recreated): its generations record its id of now. Asked
        // before anything is forgotten, so that a failure here leaves the topic as it was.
        TopicFacts.Facts facts = topicFacts.of(List.of(topic)).getOrDefault(topic, TopicFacts.Facts.UNKNOWN);
        String topicId = facts.topicId();
        if (facts.deleteRetentionMillis() >= 0) {
            rememberRetention(topic, facts);
        }
        offsets.forget(topic);
        unreadable.forget(topic);
        batch.forgetKeys(topic); // the recreated topic may spread keys otherwise: not a key on two partitions
        reading.byTopic.rebuild(
                topic,
                why,
                PartitionOffsets.byPartition(begin, topic),
                PartitionOffsets.byPartition(end, topic),
                topicId,
                facts.deleteRetentionMillis());
        watch.expect(topic, topicId);
        offsets.readFromBeginning(begin, end, endAskedAt);
        offsets.restartCurrency(topic, endAskedAt); // only once the rebuild is under way
        reading.pauses.lift(topic, tps);
        status.publish();
    }

    /**
     * Positions the broker no longer has (or none at all, after a partial attempt of this): the topic was truncated
     * past them or deleted and recreated while the writer ran. Rebuilds the namespaces of those topics from their
     * (possibly new) partitions' beginnings; other topics keep their positions, and readers keep the published
     * generations until the rebuilt ones are complete.
     */
    void rebuildOutOfRange(Set<TopicPartition> outOfRange) {
        Set<String> topics = new TreeSet<>();
        outOfRange.forEach(tp -> topics.add(tp.topic()));
        reassign(topics);
        for (String topic : topics) {
            StringBuilder why = new StringBuilder("the broker no longer has the position of partition(s)");
            outOfRange.forEach(tp -> {
                if (tp.topic().equals(topic)) {
                    why.append(' ')
                            .append(tp.partition())
                            .append(" (at ")
                            .append(offsets.appliedAt(tp))
                            .append(')');
                }
            });
            why.append(": was the topic truncated or recreated?");
            rebuild(topic, why.toString());
        }
    }

    /**
     * A topic whose id changed was deleted and recreated, maybe while the writer was not fetching (a long pause, a
     * network partition): its positions belong to the old topic, and the new one may already hold records past them,
     * so reading on would skip its first records. Its namespace is rebuilt from the new topic's partitions; a rebuild
     * that cannot start now is tried again at the next check.
     */
    void rebuildRecreated() {
        watch.changedIds().forEach((topic, id) -> {
            try {
                reassign(Set.of(topic));
                rebuild(
                        topic,
                        "its topic id is now " + id + ", not " + watch.expectedId(topic)
                                + " as read so far: the topic was deleted and recreated");
            } catch (KafkaException e) {
                log.warn(
                        "Topic '{}' was recreated (id {}) but cannot be rebuilt now ({}); trying again in 5 s",
                        topic,
                        id,
                        e.toString());
            }
        });
    }

    /** Sets the topics' partitions as the broker lists them now, and assigns them; the others keep their positions. */
    private void reassign(Set<String> topics) {
        for (String topic : topics) {
            List<TopicPartition> tps = offsets.discover(topic);
            if (tps.isEmpty()) {
                throw new UnknownTopicOrPartitionException("topic '" + topic + "' has no partitions now");
            }
            offsets.setPartitions(topic, tps);
        }
        consumer.assign(offsets.all()); // keeps the positions of partitions that stay assigned
    }

    /** What {@code facts} say of the topic's delete.retention.ms, a day (Kafka's default) when they cannot say. */
    void rememberRetention(String topic, TopicFacts.Facts facts) {
        long retention = facts.deleteRetentionMillis();
        deleteRetentionMillis.put(topic, retention >= 0 ? retention : ResumeDecision.DEFAULT_DELETE_RETENTION_MILLIS);
    }

    /** The topic's delete.retention.ms as last read; Kafka's default (a day) when never read. */
    long deleteRetentionMillis(String topic) {
        return deleteRetentionMillis.getOrDefault(topic, ResumeDecision.DEFAULT_DELETE_RETENTION_MILLIS);
    }
}
