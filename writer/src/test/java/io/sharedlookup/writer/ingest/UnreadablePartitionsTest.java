package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.ingest.UnreadablePartitions.Unreadable;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Which poll failures name one partition's unreadable record, worded as Kafka's consumer 4.x words them. */
class UnreadablePartitionsTest {
    private static final TopicPartition A_10 = new TopicPartition("a", 10);
    private static final TopicPartition A_1_0 = new TopicPartition("a-1", 0);
    private static final List<TopicPartition> ASSIGNED = List.of(A_10, A_1_0);

    private static KafkaException fetchFailed(String partition, String cause) {
        return new KafkaException(
                "Received exception when fetching the next record from " + partition + ". If "
                        + "needed, please seek past the record to continue consumption.",
                new KafkaException(cause));
    }

    @Test
    void aBatchFailingItsChecksum_isADamagedBatchOfThePartitionNamed() {
        Optional<Unreadable> u = UnreadablePartitions.of(
                fetchFailed(
                        "a-1-0",
                        "Record batch for partition a-1-0 at "
                                + "offset 5 is invalid, cause: Record is corrupt (stored crc = 1, computed crc = 2)"),
                ASSIGNED);
        assertThat(u)
                .contains(new Unreadable(
                        A_1_0,
                        5,
                        "Record batch for partition a-1-0 at offset 5 is invalid, "
                                + "cause: Record is corrupt (stored crc = 1, computed crc = 2)"));
    }

    /** A damaged length field: where the batch ends is unknown, so skipping it is not safe. */
    @Test
    void aBatchWithADamagedLength_isUnreadableButNotSkipped() {
        Optional<Unreadable> u = UnreadablePartitions.of(
                fetchFailed(
                        "a-10",
                        "Record batch for partition a-10 at "
                                + "offset 5 is invalid, cause: Record batch is corrupt (the size 32 is smaller than the minimum "
                                + "allowed overhead 61)"),
                ASSIGNED);
        assertThat(u.map(Unreadable::partition)).contains(A_10);
        assertThat(u.map(Unreadable::damagedBatchStart)).contains(-1L);
        assertThat(u.map(Unreadable::cause).orElseThrow())
                .startsWith("the record batch from offset 5 has a damaged " + "length")
                .contains("the size 32 is smaller")
                .endsWith("with an intact copy");
    }

    @Test
    void anotherCause_isUnreadableButNotDamaged() {
        Optional<Unreadable> u =
                UnreadablePartitions.of(fetchFailed("a-10", "Unable to decompress: no zstd\nmore"), ASSIGNED);
        assertThat(u).contains(new Unreadable(A_10, -1, "Unable to decompress: no zstd"));
    }

    @Test
    void aTopicNameWithDots_isNotTakenForAnotherPartition() {
        TopicPartition dotted = new TopicPartition("a-1.x", 0);
        Optional<Unreadable> u = UnreadablePartitions.of(
                fetchFailed(
                        "a-1.x-0",
                        "Record batch for partition a-1.x-0 " + "at offset 7 is invalid, cause: Record is corrupt"),
                List.of(new TopicPartition("a", 1), dotted));
        assertThat(u.map(Unreadable::partition)).contains(dotted);
        assertThat(u.map(Unreadable::damagedBatchStart)).contains(7L);
    }

    @Test
    void theBrokersOwnCorruptMessageAnswer_isUnreadableButNotSkipped() {
        Optional<Unreadable> u = UnreadablePartitions.of(
                new KafkaException("Encountered corrupt message when " + "fetching offset 6 for topic-partition a-10"),
                ASSIGNED);
        assertThat(u.map(Unreadable::partition)).contains(A_10);
        assertThat(u.map(Unreadable::damagedBatchStart)).contains(-1L);
        assertThat(u.map(Unreadable::cause).orElseThrow()).startsWith("the broker finds its log corrupt there");
    }

    @Test
    void aPartitionNotAssigned_orAnotherFailure_isNotHandledHere() {
        assertThat(UnreadablePartitions.of(
                        fetchFailed("a-1", "Record batch for partition a-1 at offset 5 is " + "invalid"), ASSIGNED))
                .isEmpty();
        assertThat(UnreadablePartitions.of(new KafkaException("Failed to construct kafka consumer"), ASSIGNED))
                .isEmpty();
        assertThat(UnreadablePartitions.of(new KafkaException((String) null), ASSIGNED))
                .isEmpty();
    }
}
