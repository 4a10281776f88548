package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.store.GenerationSizing;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the first generation of a rebuild is sized: from the topic's records and the sample, within the disk. */
class InitialSizingTest {
    private static final long TB = 1L << 40;

    @Test
    void expectedDistinct_distinctSampleAndRoomyDisk_isTheRecordCount() {
        // 10M records of a compacted topic: sized for all of them up front, no growth step during the bootstrap.
        assertThat(InitialSizing.expectedDistinct(10_000_000, 1.0, 7, 13, TB)).isEqualTo(10_000_000);
    }

    @Test
    void expectedDistinct_repeatedKeysInSample_scalesTheRecordCountDown() {
        assertThat(InitialSizing.expectedDistinct(10_000_000, 0.25, 7, 13, TB)).isEqualTo(2_500_000);
    }

    @Test
    void expectedDistinct_diskTooSmallForTheEstimate_isWhatAQuarterOfTheDiskHolds() {
        long usable = 4L << 30; // 4 GiB: a quarter is 1 GiB, at (7 + 13 + 32) x 1.5 = 78 B per entry
        long expected = InitialSizing.expectedDistinct(1_000_000_000L, 1.0, 7, 13, usable);
        assertThat(expected).isEqualTo((long) (usable
                * InitialSizing.DISK_SHARE
                / ((7 + 13 + InitialSizing.OVERHEAD_BYTES_PER_ENTRY) * GenerationSizing.HEADROOM)));
        assertThat(expected).isBetween(13_000_000L, 14_000_000L);
    }

    @Test
    void expectedDistinct_nearlyFullDisk_stillAllowsTheOldFixedSize() {
        // What the writer always did: beyond 2M expected entries, growth takes over.
        assertThat(InitialSizing.expectedDistinct(50_000_000, 1.0, 7, 13, 0))
                .isEqualTo(InitialSizing.ALWAYS_ALLOWED_ENTRIES);
        assertThat(InitialSizing.expectedDistinct(1_000, 1.0, 7, 13, 0)).isEqualTo(1_000);
    }

    @Test
    void sizing_sampleWithRepeatedKeys_usesTheirShareAndAverages() {
        InitialSizing sizing = new InitialSizing(SampleBudget.shared(1));
        assertThat(sizing.start(Map.of(0, 0L), Map.of(0, 4_000_000L))).isEqualTo(4_000_000);
        for (int i = 0; i < 999; i++) {
            assertThat(sizing.hold("k" + (i % 500), "v")).isTrue();
        }
        assertThat(sizing.full()).isFalse();
        assertThat(sizing.hold("k0", "v")).isTrue();
        assertThat(sizing.full()).as("the sample is complete at 1000 records").isTrue();
        assertThat(sizing.distinctShare()).isEqualTo(0.5);
        GenerationSizing s = sizing.sizing(TB);
        assertThat(s.entries()).isEqualTo((long) (2_000_000 * GenerationSizing.HEADROOM));
        assertThat(s.averageValueBytes()).isEqualTo(1.0);
    }

    @Test
    void hold_sharesOneHeapBudgetWithTheOtherNamespaces() {
        long record = SampleBudget.cost("k", "v".repeat(4_096));
        SampleBudget budget = new SampleBudget(10 * record, 2); // five records each, ten in all
        InitialSizing first = new InitialSizing(budget);
        InitialSizing second = new InitialSizing(budget);
        first.start(Map.of(0, 0L), Map.of(0, 1_000L));
        second.start(Map.of(0, 0L), Map.of(0, 1_000L));
        for (int i = 0; i < 5; i++) {
            assertThat(first.hold("k", "v".repeat(4_096))).isTrue();
        }
        assertThat(first.hold("k", "v".repeat(4_096))).as("its share is spent").isFalse();
        assertThat(first.full()).as("not by its own measure").isFalse();
        assertThat(budget.reserved()).isEqualTo(5 * record);

        assertThat(first.finish()).hasSize(5); // reservations pass to whoever applies them
        assertThat(budget.reserved()).isEqualTo(5 * record);
        budget.release(5 * record);
        second.hold("k", "v");
        second.clear(); // an abandoned rebuild gives back what it held
        assertThat(budget.reserved()).isZero();
    }
}
