package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a parallel pass's puts may run together ({@link GenerationFile#sharePuts}): never when the tiers they can take
 * could reach Chronicle's tier limit, where one put could take the tier another's longer value counted on after
 * checking for one (a half-moved value, {@link GenerationUnusableException}).
 */
class SharedPutsTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void putsThatCouldTakeTheLastTiersDoNotRunTogether() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (GenerationFile g =
                GenerationFile.create(file, new GenerationSizing(1024, 8, 8, 1.0), StorePermissions.DEFAULT)) {
            Assumptions.assumeTrue(
                    Files.getFileStore(dir).getUsableSpace() >= PutGate.ROOM_MARGIN_BYTES + 4 * Files.size(file),
                    "a disk with room to spare");
            long maxTiers = g.layout().maxExtraTiers();
            assertThat(g.sharePuts(maxTiers))
                    .as("a fresh generation: every tier is left")
                    .isTrue();
            g.exclusivePuts();
            assertThat(g.sharePuts(maxTiers + 1))
                    .as("more tiers than Chronicle gives")
                    .isFalse();

            for (int i = 0; put(g, "key-" + i); i++) {
                // new keys until one finds no tier left
            }
            assertThat(g.sharePuts(1))
                    .as("no tier left: a pass's puts go one at a time")
                    .isFalse();
        }
    }

    private static boolean put(GenerationFile g, String key) {
        try {
            g.put(key, "v", TIMEOUT);
            return true;
        } catch (IllegalStateException e) {
            assertThat(e).hasMessageContaining("extra segment tier");
            return false;
        }
    }
}
