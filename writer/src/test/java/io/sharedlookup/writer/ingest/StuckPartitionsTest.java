package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StuckPartitionsTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final StuckPartitions stuck = new StuckPartitions(10);
    private final Map<TopicPartition, Long> position = new HashMap<>(Map.of(P0, 5L, P1, 7L));
    private final Map<TopicPartition, Long> end = new HashMap<>(Map.of(P0, 15L, P1, 7L));

    private void check(long seconds, Set<TopicPartition> paused) {
        stuck.check(seconds * SECOND, List.of(P0, P1), paused, position::get, end::get);
    }

    @Test
    void aPartitionThatStaysPutBehindItsLogEndIsStuckOnlyPastTheBound() {
        check(0, Set.of());
        check(9, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(10, Set.of());
        assertThat(stuck.count("t")).isOne();
        assertThat(stuck.reason("t")).startsWith("partition 0 has not moved past offset 5 for 10 s although its log "
                + "ends at 15");
        assertThat(stuck.reason("other")).isNull();
    }

    @Test
    void movingAgainClearsIt() {
        check(0, Set.of());
        check(20, Set.of());
        position.put(P0, 6L);
        check(21, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(30, Set.of());
        assertThat(stuck.count("t")).as("the bound counts from the last move").isZero();
        check(31, Set.of());
        assertThat(stuck.count("t")).isOne();
    }

    @Test
    void aPartitionAtItsLogEndIsNeverStuck() {
        position.put(P0, 15L);
        check(0, Set.of());
        check(100, Set.of());
        assertThat(stuck.count("t")).isZero();
    }

    @Test
    void pausedPartitionsAndAGoneBrokerStartTheWatchAfresh() {
        check(0, Set.of());
        check(20, Set.of(P0));
        assertThat(stuck.count("t")).as("paused on purpose").isZero();
        check(25, Set.of());
        check(34, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(35, Set.of());
        assertThat(stuck.count("t")).isOne();
        stuck.reset();
        assertThat(stuck.count("t")).isZero();
        check(40, Set.of());
        assertThat(stuck.count("t")).isZero();
    }

    @Test
    void aPartitionNoLongerAssignedIsForgotten() {
        check(0, Set.of());
        check(20, Set.of());
        assertThat(stuck.count("t")).isOne();
        stuck.check(21 * SECOND, List.of(P1), Set.of(), position::get, end::get);
        assertThat(stuck.count("t")).isZero();
    }
}
