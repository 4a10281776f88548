package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Extra tiers are read through windows of whole tiers: each tier must land in exactly the window and at the offset
 * the store format gives it ({@code base.size + bulk x tier.bulk.size + tier.bulk.inner.offset + (e mod tiers.in.bulk)
 * x tier.size}), with bulks past 2 GiB and file offsets past 16 GiB, and never straddle two windows.
 */
class TierWindowsTest {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    /** A consistent layout of {@code segments} first tiers of {@code tierSize}, extra tiers in bulks as given. */
    static MapLayout layout(int segments, long tierSize, long tiersInBulk, long innerOffset, long maxExtraTiers) {
        long segmentsOffset = 4096 + segments * 64L;
        long entrySpaceOffset = 16384;
        return new MapLayout(
                "test",
                segments,
                4096,
                64,
                segmentsOffset,
                tierSize,
                segmentsOffset + segments * tierSize,
                tiersInBulk,
                innerOffset + tiersInBulk * tierSize,
                innerOffset,
                maxExtraTiers,
                8,
                1024,
                30,
                34,
                8192,
                entrySpaceOffset,
                4096,
                (tierSize - entrySpaceOffset) / 4096);
    }

    @Test
    void bulksPastTwoGibibytes_areReadInWindowsOfOneTier_whenATierIsOverHalfAWindow() {
        // 32 segments of 600 MiB tiers, 4 tiers a bulk (Chronicle's segments / 8): bulks of 2.34 GiB, and the extra
        // tiers start at 18.75 GiB into the file
        MapLayout layout = layout(32, 600 * MIB, 4, 0, 32);
        assertThat(layout.tierBulkSize()).isGreaterThan(2 * GIB);
        assertThat(layout.baseSize()).isGreaterThan(16 * GIB);
        TierWindows windows = TierWindows.of(layout);

        assertThat(windows.tiersPerWindow()).isEqualTo(1);
        assertThat(windows.windowBytes()).isEqualTo(600 * MIB);
        assertThat(windows.windowOf(5)).isEqualTo(5);
        assertThat(windows.offsetInWindow(5)).isZero();
        // bulk 1, its second tier
        assertThat(windows.fileOffset(5)).isEqualTo(layout.baseSize() + layout.tierBulkSize() + 600 * MIB);
        assertEveryTierWhereTheFormatSays(layout, windows);
    }

    @Test
    void bulksOfManySmallTiers_areReadInWindowsOfSeveralTiers() {
        // 512 segments of 64 MiB tiers: 64 tiers a bulk, 4 GiB each, read 16 tiers (1 GiB) at a time
        MapLayout layout = layout(512, 64 * MIB, 64, 0, 600);
        TierWindows windows = TierWindows.of(layout);

        assertThat(windows.tiersPerWindow()).isEqualTo(16);
        assertThat(windows.windowBytes()).isEqualTo(GIB);
        assertThat(windows.windowOf(100)).isEqualTo(6); // bulk 1 (tiers 64..127), its third window (96..111)
        assertThat(windows.offsetInWindow(100)).isEqualTo(4 * 64 * MIB);
        assertThat(windows.fileOffset(6)).isEqualTo(layout.baseSize() + 4 * GIB + 2 * GIB);
        assertThat(windows.fileOffset(6)).as("past 32 GiB + 6 GiB").isEqualTo(32 * GIB + 6 * GIB + 4096 + 512 * 64);
        assertEveryTierWhereTheFormatSays(layout, windows);
    }

    @Test
    void aBulkWithATierHeaderAndTiersOfAWholeWindow() {
        assertEveryTierWhereTheFormatSays(layout(16, GIB, 2, 4096, 40), TierWindows.of(layout(16, GIB, 2, 4096, 40)));
        // tiers that do not divide a window: as many whole tiers as fit, a power of two (three would not divide a bulk)
        MapLayout odd = layout(64, 300 * MIB, 8, 4096, 64);
        TierWindows windows = TierWindows.of(odd);
        assertThat(windows.tiersPerWindow()).isEqualTo(2);
        assertEveryTierWhereTheFormatSays(odd, windows);
    }

    @Test
    void smallBulks_areOneWindowEach_asBefore() {
        MapLayout layout = layout(64, 64 * 1024, 8, 0, 64);
        TierWindows windows = TierWindows.of(layout);
        assertThat(windows.windowBytes()).isEqualTo(layout.tierBulkSize());
        assertThat(windows.windowOf(17)).isEqualTo(2);
        assertEveryTierWhereTheFormatSays(layout, windows);
    }

    /** Every extra tier the layout allows, rounded up to whole bulks: where the format puts it, inside its window. */
    private static void assertEveryTierWhereTheFormatSays(MapLayout layout, TierWindows windows) {
        long bulks = (layout.maxExtraTiers() + layout.tiersInBulk() - 1) / layout.tiersInBulk();
        for (long e = 0; e < bulks * layout.tiersInBulk(); e++) {
            long expected = layout.baseSize()
                    + e / layout.tiersInBulk() * layout.tierBulkSize()
                    + layout.tierBulkInnerOffset()
                    + e % layout.tiersInBulk() * layout.tierSize();
            int window = windows.windowOf(e);
            int offset = windows.offsetInWindow(e);
            assertThat(windows.fileOffset(window) + offset)
                    .as("extra tier %s", e)
                    .isEqualTo(expected);
            assertThat(offset).as("extra tier %s starts in its window", e).isNotNegative();
            assertThat((long) offset + layout.tierSize())
                    .as("extra tier %s ends in its window", e)
                    .isLessThanOrEqualTo(windows.windowBytes());
            assertThat(windows.windowBytes()).isLessThanOrEqualTo(TierWindows.WINDOW_BYTES);
        }
    }
}
