package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Which generations lengthened for a large entry are refused before any file is made: those whose tiers readers could
 * not map (a tier over 1 GiB), or that would take more than a quarter of the free disk (tiers in every segment).
 */
class EntryRoomTest {
    private static final long MIB = 1L << 20;

    private static GenerationSizing sized(long entries, long largestEntryBytes) {
        return new GenerationSizing(entries, 16, 32, GenerationSizing.MAX_BLOAT_FACTOR, largestEntryBytes);
    }

    @Test
    void aGenerationSizedFromItsAveragesIsNeverRefused() {
        assertThat(EntryRoom.refusal(sized(1024, 0), true, 1)).isNull();
        assertThat(EntryRoom.refusal(sized(1024, 40), true, 1))
                .as("no longer tiers for 40 bytes")
                .isNull();
    }

    @Test
    void aTierOverWhatReadersMapIsRefusedAndNeverMade() {
        GenerationSizing huge = sized(1024, 1536 * MIB);
        assertThat(EntryRoom.refusal(huge, false, 0)).contains("over what readers can map");
        assertThatThrownBy(() -> EntryRoom.configure(GenerationMaps.builder(), huge))
                .isInstanceOf(NoRoomForEntryException.class)
                .hasMessageContaining("over what readers can map");
    }

    /**
     * Tiers are allocated in bulks of segments / 8: many segments and a large value pass 2 GiB (here 512 tiers of
     * 5 MiB), which readers map in windows of whole tiers: no refusal for that, only the disk can say no.
     */
    @Test
    void aTierBulkOverTwoGibibytesIsNotRefused() {
        assertThat(EntryRoom.refusal(sized(1024, 900 * MIB), false, 0))
                .as("4 segments, one tier a bulk")
                .isNull();
        GenerationSizing manySegments = sized(20_000_000, 5 * MIB);
        assertThat(EntryRoom.refusal(manySegments, false, 0)).isNull();
        assertThatCode(() -> EntryRoom.configure(GenerationMaps.builder(), manySegments))
                .doesNotThrowAnyException();
        assertThat(EntryRoom.tiersOf(manySegments).bulkBytes()).isGreaterThan(2L << 30);
    }

    @Test
    void lengthenedTiersOverAQuarterOfTheFreeDiskAreRefused() {
        GenerationSizing oneMib = sized(1024, MIB);
        assertThat(EntryRoom.refusal(oneMib, true, 4 * MIB))
                .contains("4 segments and as many in its reverse index")
                .contains("of the 4194304 bytes free on disk");
        assertThat(EntryRoom.refusal(oneMib, true, 1L << 40)).isNull();
        assertThat(EntryRoom.refusal(oneMib, true, 0)).as("free disk unknown").isNull();
    }
}
