package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A stalled topic's partitions are paused in the consumer, and resumed when the namespace asked to be tried again. */
class TopicPausesTest {
    private static final TopicPartition P0 = new TopicPartition("users", 0);
    private static final TopicPartition P1 = new TopicPartition("users", 1);
    private static final TopicPartition OTHER = new TopicPartition("teams", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none");
    private final PartitionOffsets offsets = new PartitionOffsets(consumer);
    private final TopicPauses pauses = new TopicPauses(consumer, offsets);

    TopicPausesTest() {
        offsets.setPartitions("users", List.of(P0, P1));
        offsets.setPartitions("teams", List.of(OTHER));
        consumer.assign(List.of(P0, P1, OTHER));
    }

    @Test
    void resumeDue_beforeThePauseIsOver_keepsTheTopicPaused() {
        pauses.pause("users", "disk full", 60_000);
        pauses.resumeDue();
        assertThat(consumer.paused()).containsExactlyInAnyOrder(P0, P1);
        assertThat(pauses.isPaused("users")).isTrue();
        assertThat(pauses.isPaused("teams")).isFalse();
    }

    @Test
    void resumeDue_onceThePauseIsOver_resumesThePartitions() {
        pauses.pause("users", "disk full", 50);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    pauses.resumeDue();
                    return !pauses.isPaused("users");
                });
        assertThat(consumer.paused()).isEmpty();
    }

    /** A stall retried every few seconds is resumed for a moment at a time: it still counts as paused then. */
    @Test
    void pausedSince_aPauseAlreadyOver_countsFromWhenItBegan() {
        long before = System.nanoTime();
        pauses.pause("users", "disk full", 50);
        pauses.lift("users", List.of(P0, P1));
        assertThat(pauses.isPaused("users")).isFalse();
        assertThat(pauses.pausedSince("users", before)).isTrue();
        assertThat(pauses.pausedSince("users", System.nanoTime() + 1)).isFalse();
        assertThat(pauses.pausedSince("teams", before)).isFalse();
    }

    @Test
    void lift_pausedTopic_resumesItAtOnce() {
        pauses.pause("users", "generation full", 60_000);
        pauses.lift("users", List.of(P0, P1));
        assertThat(consumer.paused()).isEmpty();
        assertThat(pauses.isPaused("users")).isFalse();
    }

    @Test
    void pause_sameReasonAgain_pausesAgain() {
        pauses.pause("users", "disk full", 50);
        pauses.lift("users", List.of(P0, P1));
        pauses.pause("users", "disk full", 60_000);
        assertThat(consumer.paused()).containsExactlyInAnyOrder(P0, P1);
        assertThat(pauses.isPaused("users")).isTrue();
    }
}
