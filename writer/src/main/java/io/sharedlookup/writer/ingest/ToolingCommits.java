package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applied positions committed to the consumer group (with a {@code group.id}), so that broker tooling shows the
 * writer and its lag; nothing the writer does depends on them. Owned by the ingest thread.
 */
final class ToolingCommits {
    private static final Logger log = LoggerFactory.getLogger(ToolingCommits.class);
    private final RateLimitedLog commitFailures = new RateLimitedLog(log, 600_000);
    private final Consumer<byte[], byte[]> consumer;
    /** Without a {@code group.id} there is no group to commit to (the writer assigns its partitions itself). */
    private final boolean hasGroup;

    ToolingCommits(Consumer<byte[], byte[]> consumer, boolean hasGroup) {
        this.consumer = consumer;
        this.hasGroup = hasGroup;
    }

    /**
     * Commits the applied positions to the consumer group, so that broker tooling ({@code kafka-consumer-groups
     * --describe}) shows the writer and its lag: asynchronously while running, synchronously at a clean stop. Never
     * read back: the offsets stored with each generation are what the writer resumes from.
     */
    void commit(Map<TopicPartition, Long> applied, boolean atStop) {
        if (!hasGroup || applied.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        applied.forEach((tp, next) -> offsets.put(tp, new OffsetAndMetadata(next)));
        try {
            if (atStop) {
                try {
                    consumer.commitSync(offsets, Duration.ofSeconds(2));
                } catch (WakeupException pending) {
                    // the stop's own wakeup, left pending when the loop ended without another poll: thrown once,
                    // then cleared
                    consumer.commitSync(offsets, Duration.ofSeconds(2));
                }
            } else {
                consumer.commitAsync(offsets, (done, e) -> {
                    if (e != null) {
                        commitFailed(e);
                    }
                });
            }
        } catch (KafkaException e) {
            commitFailed(e);
        }
    }

    /**
     * A commit to the consumer group failed: nothing the writer does depends on it, but the group's offsets, and the
     * lag tooling shows from them, stop moving. Said at most every 10 minutes (commits come every 5 s).
     */
    private void commitFailed(Exception e) {
        commitFailures.warn(
                "Committing positions to the consumer group failed (for tooling only: "
                        + "kafka-consumer-groups shows stale offsets; with an authorization error, grant the writer's Kafka "
                        + "principal READ on the group): {}",
                e.toString());
    }
}
