package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.writer.namespace.Positions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * What the ingest thread knows of the partitions: since when the applied positions are known current (stored as
 * {@code updated.at}), and the commit of applied positions to the consumer group, which only tooling reads.
 */
class PartitionOffsetsTest {
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

    /**
     * Current as of the latest answer with end offsets that every partition's position has reached: a partition
     * behind, or a topic whose ends were never asked for, gives nothing; a topic a little behind the latest answer is
     * credited with an earlier one it has passed.
     */
    @Test
    void positionsAreCurrentAsOfTheLatestEndOffsetsEveryPartitionReached() {
        WakeableCommits consumer = new WakeableCommits();
        TopicPartition users1 = new TopicPartition("users", 1);
        consumer.assign(List.of(USERS_0, users1));
        PartitionOffsets offsets = new PartitionOffsets(consumer);
        offsets.setPartitions("users", List.of(USERS_0, users1));
        offsets.seek(USERS_0, 0);
        offsets.seek(users1, 0);
        offsets.started(Map.of(USERS_0, 0L, users1, 0L), Map.of(USERS_0, 5L, users1, 2L), 1_000);
        assertThat(offsets.reachedAsOfMillis("users")).as("behind the ends").isEqualTo(Positions.UNKNOWN);

        offsets.applied(USERS_0, 5);
        assertThat(offsets.reachedAsOfMillis("users"))
                .as("one partition behind")
                .isEqualTo(Positions.UNKNOWN);
        offsets.applied(users1, 2);
        assertThat(offsets.reachedAsOfMillis("users")).isEqualTo(1_000);

        // A later answer, beyond the positions: still current only as of the earlier one.
        consumer.updateEndOffsets(Map.of(USERS_0, 8L, users1, 2L));
        long asked = System.currentTimeMillis();
        offsets.refreshEnds(Set.of(), true);
        assertThat(offsets.reachedAsOfMillis("users")).isEqualTo(1_000);
        offsets.applied(USERS_0, 8);
        // Kept on the monotonic clock and given back on the wall clock: the two are read one after the other and
        // rounded, so a time read back may be a millisecond before the one given (and may drift up to a step).
        assertThat(offsets.reachedAsOfMillis("users"))
                .isBetween(asked - TopicCurrency.STEP_MILLIS, System.currentTimeMillis());

        assertThat(offsets.currentAsOfMillis("users"))
                .as("nothing credited yet")
                .isEqualTo(Positions.UNKNOWN);
        offsets.credit("users", 1_000);
        assertThat(offsets.currentAsOfMillis("users")).isEqualTo(1_000);
        offsets.restartCurrency("users", 2_000); // a rebuild reads the topic again from ends asked for at 2,000
        assertThat(offsets.currentAsOfMillis("users")).isEqualTo(2_000);
    }

    /**
     * Issue #39 item 6: a topic whose end offsets are not answered (deleted, or its leader gone) holds up one call for
     * all topics; the others are then asked alone and refreshed, and only it is named.
     */
    @Test
    void aTopicThatDoesNotAnswerIsNamedAndTheOthersAreRefreshed() {
        TopicPartition gone = new TopicPartition("gone", 0);
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none") {
            @Override
            public synchronized Map<TopicPartition, Long> endOffsets(
                    java.util.Collection<TopicPartition> tps, Duration timeout) {
                if (tps.contains(gone)) {
                    throw new org.apache.kafka.common.errors.TimeoutException("no leader for " + gone);
                }
                return super.endOffsets(tps, timeout);
            }
        };
        consumer.assign(List.of(USERS_0, gone));
        consumer.updateEndOffsets(Map.of(USERS_0, 7L));
        PartitionOffsets offsets = new PartitionOffsets(consumer);
        offsets.setPartitions("users", List.of(USERS_0));
        offsets.setPartitions("gone", List.of(gone));

        assertThat(offsets.refreshEnds(Set.of(), true)).containsExactly("gone");
        assertThat(offsets.latestEnd(USERS_0)).isEqualTo(7);
        assertThat(offsets.refreshEnds(Set.of("gone"), true))
                .as("a topic known gone is not asked")
                .isEmpty();
        consumer.updateEndOffsets(Map.of(USERS_0, 9L));
        offsets.refreshEnds(Set.of("gone"), true);
        assertThat(offsets.latestEnd(USERS_0)).isEqualTo(9);
        assertThatThrownBy(() -> offsets.refreshEnds(Set.of(), false))
                .as("not asked alone while the broker answers nothing else: unreachable, as before")
                .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }

    /**
     * A topic that exists but does not answer (its partition leader gone) is not asked again in the call for all
     * topics at every check: each check holds the ingest thread about a second at most (it used to be 3 s for the
     * call for all plus up to 2 s asking each alone, of every 5 s), the healthy topic is refreshed at each, and the
     * topic is refreshed again once its leader is back. The consumer blocks for the whole timeout it is given, as
     * KafkaConsumer does when a partition has no leader.
     */
    @Test
    void aTopicWithoutLeaderHoldsEachCheckAtMostAboutASecond() throws Exception {
        TopicPartition leaderless = new TopicPartition("leaderless", 0);
        java.util.concurrent.atomic.AtomicBoolean leaderBack = new java.util.concurrent.atomic.AtomicBoolean();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none") {
            @Override
            public synchronized Map<TopicPartition, Long> endOffsets(
                    java.util.Collection<TopicPartition> tps, Duration timeout) {
                if (tps.contains(leaderless) && !leaderBack.get()) {
                    try {
                        Thread.sleep(timeout.toMillis()); // what a blocking call without an answer costs
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    throw new org.apache.kafka.common.errors.TimeoutException("no leader for " + leaderless);
                }
                return super.endOffsets(tps, timeout);
            }
        };
        consumer.assign(List.of(USERS_0, leaderless));
        PartitionOffsets offsets = new PartitionOffsets(consumer);
        offsets.setPartitions("users", List.of(USERS_0));
        offsets.setPartitions("leaderless", List.of(leaderless));

        for (long end = 1; end <= 3; end++) {
            consumer.updateEndOffsets(Map.of(USERS_0, end));
            long began = System.nanoTime();
            Set<String> unanswered = offsets.refreshEnds(Set.of(), true);
            long heldMillis = (System.nanoTime() - began) / 1_000_000;
            // The cap is 1.2 s plus one short ask alone; 2 s leaves room for a loaded machine, and is far below
            // the 5 s a check took before.
            assertThat(heldMillis)
                    .as("check %d held the ingest thread, ms", end)
                    .isLessThan(2_000);
            assertThat(unanswered).contains("leaderless");
            if (end > 1) { // at the first, which of the two holds the call up is not known yet
                assertThat(unanswered).as("check %d", end).containsExactly("leaderless");
                assertThat(offsets.latestEnd(USERS_0))
                        .as("healthy topic refreshed at check %d", end)
                        .isEqualTo(end);
            }
        }
        leaderBack.set(true);
        consumer.updateEndOffsets(Map.of(USERS_0, 4L, leaderless, 6L));
        assertThat(offsets.refreshEnds(Set.of(), true))
                .as("answers again once its leader is back")
                .isEmpty();
        assertThat(offsets.latestEnd(leaderless)).isEqualTo(6);
        assertThat(offsets.latestEnd(USERS_0)).isEqualTo(4);
    }
}
