package io.sharedlookup.writer.ingest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The start of reading: discovers every topic's partitions and offsets, assigns them all (no consumer group), lets
 * every namespace choose between resuming its published generation and rebuilding from the beginning, and positions
 * each partition there. Run by the ingest thread until it succeeds: a {@code KafkaException} (the broker does not
 * answer) or a topic that does not exist yet has it tried again as a whole.
 */
final class IngestStart {
    private final Reading reading;
    private final TopicFacts topicFacts;
    private final TopicWatch watch;
    private final TopicRebuilds rebuilds;
    private final PeriodicJobs jobs;
    private final IngestStatus status;
    private final IngestHold hold;
    private final String bootstrapServers;

    IngestStart(
            Reading reading,
            TopicFacts topicFacts,
            TopicWatch watch,
            TopicRebuilds rebuilds,
            PeriodicJobs jobs,
            IngestStatus status,
            IngestHold hold,
            String bootstrapServers) {
        this.reading = reading;
        this.topicFacts = topicFacts;
        this.watch = watch;
        this.rebuilds = rebuilds;
        this.jobs = jobs;
        this.status = status;
        this.hold = hold;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts reading every topic; returns null once started, else why not yet (a topic that does not exist), for the
     * loop to say and retry.
     */
    String start() {
        Consumer<byte[], byte[]> consumer = reading.consumer;
        PartitionOffsets offsets = reading.offsets;
        TopicNamespaces byTopic = reading.byTopic;
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : byTopic.topics()) {
            List<TopicPartition> tps = offsets.discover(topic);
            hold.backInLoop(); // each step may wait on Kafka, bounded: the hold counts from the last one
            if (tps.isEmpty()) {
                return "topic '" + topic + "' does not exist on " + bootstrapServers;
            }
            offsets.setPartitions(topic, tps);
            all.addAll(tps);
        }
        consumer.assign(all);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(all, Duration.ofSeconds(10));
        hold.backInLoop();
        long endAskedAt = System.currentTimeMillis();
        Map<TopicPartition, Long> end = consumer.endOffsets(all, Duration.ofSeconds(10));
        hold.backInLoop();
        Map<String, TopicFacts.Facts> facts = topicFacts.of(byTopic.topics());
        for (String topic : byTopic.topics()) {
            TopicFacts.Facts f = facts.getOrDefault(topic, TopicFacts.Facts.UNKNOWN);
            watch.expect(topic, f.topicId());
            Map<Integer, Long> from = byTopic.start(
                    topic,
                    PartitionOffsets.byPartition(begin, topic),
                    PartitionOffsets.byPartition(end, topic),
                    f.deleteRetentionMillis(),
                    f.topicId());
            rebuilds.rememberRetention(topic, f);
            if (byTopic.isLive(topic)) { // resumed: its offsets are as current as its manifest says
                offsets.credit(topic, byTopic.publishedCurrentAsOfMillis(topic));
            } else { // built from the beginning, read from ends asked for just now
                offsets.restartCurrency(topic, endAskedAt);
            }
            for (TopicPartition tp : offsets.of(topic)) {
                offsets.seek(tp, from.getOrDefault(tp.partition(), begin.get(tp)));
            }
        }
        jobs.started(offsets.started(begin, end, endAskedAt));
        status.started(); // Kafka answered every question above
        status.publish();
        return null;
    }
}
