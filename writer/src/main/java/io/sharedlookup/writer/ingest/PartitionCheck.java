package io.sharedlookup.writer.ingest;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Every {@value #PERIOD_MILLIS} ms: partitions added to a topic are read from their beginning, and a paused topic's
 * new ones are paused too. It compares each topic's partitions with the consumer's cached metadata (refreshed every
 * {@value ConsumerSettings#METADATA_MAX_AGE_MS} ms unless {@code metadata.max.age.ms} is set): no request to the
 * broker, so the poll loop is not slowed.
 */
final class PartitionCheck implements PeriodicJob {
    /** How often the partitions in the consumer's cached metadata are compared with the assigned ones. */
    static final long PERIOD_MILLIS = 1_000;

    private final Reading reading;
    private final IngestStatus status;

    PartitionCheck(Reading reading, IngestStatus status) {
        this.reading = reading;
        this.status = status;
    }

    @Override
    public void run(long nowNanos) {
        Map<String, List<TopicPartition>> added = reading.offsets.followAdded(reading.byTopic.topics());
        if (added.isEmpty()) {
            return;
        }
        added.forEach((topic, tps) -> {
            if (reading.pauses.isPaused(topic)) {
                reading.consumer.pause(tps);
            }
        });
        status.publish();
    }
}
