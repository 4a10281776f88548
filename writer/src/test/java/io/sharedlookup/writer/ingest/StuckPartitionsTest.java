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
        check(5, Set.of());
        check(9, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(10, Set.of());
        assertThat(stuck.count("t")).isOne();
        assertThat(stuck.reason("t"))
                .startsWith("partition 0 has not moved past offset 5 for 10 s although its log " + "ends at 15");
        assertThat(stuck.reason("other")).isNull();
        end.put(P0, 20L);
        check(15, Set.of());
        assertThat(stuck.reason("t"))
                .as("the figures of the last check")
                .startsWith("partition 0 has not moved past " + "offset 5 for 15 s although its log ends at 20");
    }

    @Test
    void movingAgainClearsIt() {
        everyFiveSecondsUntil(20, Set.of());
        assertThat(stuck.count("t")).isOne();
        position.put(P0, 6L);
        check(21, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(26, Set.of());
        check(30, Set.of());
        assertThat(stuck.count("t")).as("the bound counts from the last move").isZero();
        check(31, Set.of());
        assertThat(stuck.count("t")).isOne();
    }

    @Test
    void timeTheIngestThreadSpentElsewhereDoesNotCount() {
        check(0, Set.of());
        check(5, Set.of());
        check(65, Set.of()); // a minute in a growth copy: no poll could move it
        assertThat(stuck.count("t")).isZero();
        check(70, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(75, Set.of());
        assertThat(stuck.count("t")).isOne();
        check(200, Set.of());
        assertThat(stuck.count("t")).as("a stuck partition stays reported").isOne();
    }

    /**
     * A writer slower than its topic (seen at 100M entries: a growth copy on a host short of memory, ~50 records/s)
     * polls rarely, and the consumer hands out one partition's fetched records for minutes before the next one's: the
     * others stay put with their logs going on, through no fault of the broker. Time the ingest thread spent applying
     * records does not count towards the bound; time it was free to read does.
     */
    @Test
    void timeTheWriterSpentApplyingRecordsDoesNotCount() {
        check(0, Set.of());
        for (long s = 5; s <= 120; s += 5) {
            stuck.busyFor(5 * SECOND - SECOND / 10); // each 5 s between checks: 4.9 s applying, 0.1 s polling
            check(s, Set.of());
        }
        assertThat(stuck.count("t"))
                .as("2 minutes put, but only 2.4 s of them free to read")
                .isZero();
        check(125, Set.of()); // the writer idle again: polling all the time
        assertThat(stuck.count("t")).as("7.4 s free to read").isZero();
        check(128, Set.of());
        assertThat(stuck.count("t")).as("10.4 s free to read: past the bound").isOne();
        assertThat(stuck.reason("t")).startsWith("partition 0 has not moved past offset 5 for 128 s");
    }

    private void everyFiveSecondsUntil(long seconds, Set<TopicPartition> paused) {
        for (long s = 0; s <= seconds; s += 5) {
            check(s, paused);
        }
    }

    @Test
    void aPartitionAtItsLogEndIsNeverStuck() {
        position.put(P0, 15L);
        everyFiveSecondsUntil(100, Set.of());
        assertThat(stuck.count("t")).isZero();
    }

    @Test
    void pausedPartitionsAndAGoneBrokerStartTheWatchAfreshButKeepWhatWasReported() {
        everyFiveSecondsUntil(20, Set.of(P0));
        assertThat(stuck.count("t")).as("paused on purpose").isZero();
        check(25, Set.of());
        check(30, Set.of());
        check(34, Set.of());
        assertThat(stuck.count("t")).isZero();
        check(35, Set.of());
        assertThat(stuck.count("t")).isOne();
        position.put(P1, 6L); // P1 lags from now on
        check(36, Set.of());
        stuck.restart(); // the broker gone, or polls failing
        check(40, Set.of());
        assertThat(stuck.count("t")).as("a reported partition stays reported").isOne();
        check(45, Set.of());
        check(49, Set.of());
        assertThat(stuck.reason("t")).doesNotContain("partition 1");
        check(50, Set.of());
        assertThat(stuck.reason("t"))
                .as("the others are watched afresh from 40")
                .contains("partition 1");
    }

    @Test
    void aPartitionNoLongerAssignedIsForgotten() {
        everyFiveSecondsUntil(20, Set.of());
        assertThat(stuck.count("t")).isOne();
        stuck.check(21 * SECOND, List.of(P1), Set.of(), position::get, end::get);
        assertThat(stuck.count("t")).isZero();
    }

    /**
     * Issue #39 item 7: a partition at its last stable offset (the consumer's end, read_committed) whose high watermark
     * is beyond it is held by an open transaction: stuck past the bound, naming it, and clear once it moves.
     */
    @Test
    void aPartitionHeldAtTheLastStableOffsetByAnOpenTransactionIsStuckNamingIt() {
        end.put(P0, 5L); // the last stable offset: the position has reached it
        Map<TopicPartition, Long> highWatermark = Map.of(P0, 9L, P1, 7L);
        Map<TopicPartition, String> open = Map.of(P0, "open transaction of producer id 42");
        for (long s = 0; s <= 10; s += 5) {
            stuck.check(s * SECOND, List.of(P0, P1), Set.of(), position::get, end::get, highWatermark::get, open::get);
        }
        assertThat(stuck.count("t")).isOne();
        assertThat(stuck.reason("t"))
                .startsWith("partition 0 has been held at its last stable offset 5 for 10 s by "
                        + "open transaction of producer id 42: the records after it, up to offset 9, are not readable");

        position.put(P0, 9L); // committed, and read
        end.put(P0, 9L);
        stuck.check(15 * SECOND, List.of(P0, P1), Set.of(), position::get, end::get, highWatermark::get, open::get);
        assertThat(stuck.count("t")).isZero();
    }

    @Test
    void withoutAHighWatermarkAPartitionAtItsLastStableOffsetIsNotStuck() {
        end.put(P0, 5L);
        everyFiveSecondsUntil(30, Set.of());
        assertThat(stuck.count("t")).isZero();
    }
}
