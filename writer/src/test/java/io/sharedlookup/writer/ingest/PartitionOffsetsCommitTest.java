package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/** The commit of applied positions to the consumer group, which only tooling reads. */
class PartitionOffsetsCommitTest {
    private static final TopicPartition USERS_0 = new TopicPartition("users", 0);

    /**
     * As {@code KafkaConsumer.commitSync} does: a {@link #wakeup()} not yet thrown by a poll is thrown by the next
     * blocking call, once. ({@link MockConsumer} throws it from {@code poll} only.)
     */
    static final class WakeableCommits extends MockConsumer<byte[], byte[]> {
        private boolean wakeupPending;

        WakeableCommits() {
            super("none");
        }

        @Override
        public synchronized void wakeup() {
            wakeupPending = true;
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            if (wakeupPending) {
                wakeupPending = false;
                throw new WakeupException();
            }
            super.commitSync(offsets, timeout);
        }
    }

    @Test
    void theStopsOwnWakeupDoesNotCostTheFinalCommit() {
        WakeableCommits consumer = new WakeableCommits();
        consumer.assign(List.of(USERS_0));
        PartitionOffsets offsets = new PartitionOffsets(consumer);
        offsets.applied(USERS_0, 42);

        // The stop wakes the consumer; when the loop ends between polls, that wakeup is still pending at the commit.
        consumer.wakeup();
        offsets.commitForTooling(true);

        assertThat(consumer.committed(Set.of(USERS_0))).containsEntry(USERS_0, new OffsetAndMetadata(42));
    }

    @Test
    void whileRunningTheAppliedPositionsAreCommittedToo() {
        WakeableCommits consumer = new WakeableCommits();
        consumer.assign(List.of(USERS_0));
        PartitionOffsets offsets = new PartitionOffsets(consumer);
        offsets.applied(USERS_0, 7);

        offsets.commitForTooling(false);

        assertThat(consumer.committed(Set.of(USERS_0))).containsEntry(USERS_0, new OffsetAndMetadata(7));
    }
}
