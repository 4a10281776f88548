package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle Map's failures reach the writer as typed exceptions ({@link ChronicleFailures}): a full generation as
 * {@link TiersExhaustedException} (callers grow the namespace on that type), an oversized entry as
 * {@link EntryTooLargeException}, anything else unchanged.
 */
class ChronicleFailuresTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);
    private static final Path FILE = Path.of("g0000000007.cmap");

    @TempDir
    Path dir;

    /** Chronicle's own refusal, from a real map whose tiers are all taken, arrives typed. */
    @Test
    void aPutIntoAFullGeneration_failsWithTiersExhausted() throws Exception {
        try (GenerationFile g = GenerationFile.create(
                dir.resolve("g0000000001.cmap"), new GenerationSizing(1024, 8, 8, 1.0), StorePermissions.DEFAULT)) {
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 1_000_000; i++) {
                            g.put("key-" + i, "v", TIMEOUT);
                        }
                    })
                    .isExactlyInstanceOf(TiersExhaustedException.class)
                    .hasMessageContaining("g0000000001.cmap")
                    .hasMessageContaining("extra segment tier") // Chronicle's words kept for the operator
                    .hasCauseExactlyInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void chroniclesNoTierLeft_becomesTiersExhausted() {
        IllegalStateException chronicle =
                new IllegalStateException("Attempt to allocate #33 extra segment tier, 32 is maximum.");
        assertThat(ChronicleFailures.ofPut(chronicle, "k", "v", FILE))
                .isExactlyInstanceOf(TiersExhaustedException.class)
                .hasMessage("Generation g0000000007.cmap has no room left: "
                        + "Attempt to allocate #33 extra segment tier, 32 is maximum.")
                .hasCause(chronicle);
    }

    @Test
    void chroniclesTooLarge_becomesEntryTooLarge() {
        IllegalArgumentException chronicle = new IllegalArgumentException("Entry is too large: requires 70 chunks");
        assertThat(ChronicleFailures.ofPut(chronicle, "key", "value", FILE))
                .isExactlyInstanceOf(EntryTooLargeException.class)
                .hasMessageContaining("key of 3 chars and value of 5 chars does not fit generation g0000000007.cmap")
                .hasCause(chronicle);
    }

    @Test
    void otherFailures_passUnchanged() {
        IllegalStateException other = new IllegalStateException("Segment lock held");
        assertThat(ChronicleFailures.ofPut(other, "k", "v", FILE)).isSameAs(other);
        TiersExhaustedException typed = ChronicleFailures.noTierForLongerValue(FILE, 32);
        assertThat(ChronicleFailures.ofPut(typed, "k", "v", FILE)).isSameAs(typed);
    }
}
