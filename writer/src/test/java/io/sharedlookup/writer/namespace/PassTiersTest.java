package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.KeySegments;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The most extra tiers a parallel pass can take: one per segment it touches, unless a segment's share outgrows a tier. */
class PassTiersTest {
    @TempDir
    Path dir;

    @Test
    void aPassTakesATierPerSegmentTouchedUnlessOneSegmentsRecordsOutgrowATier() throws Exception {
        try (GenerationFile g = GenerationFile.create(
                dir.resolve("g0000000001.cmap"), new GenerationSizing(10_000, 8, 8, 2.0), StorePermissions.DEFAULT)) {
            MapLayout layout = g.layout();
            PassTiers small = new PassTiers(layout);
            for (int i = 0; i < 200; i++) {
                String key = "key-" + (i % 2 == 0 ? "a" : "b");
                small.add(KeySegments.segmentOf(layout, key), key, "v" + i);
            }
            assertThat(small.atMost()).as("two keys, two segments at most").isBetween(1L, 2L);

            PassTiers large = new PassTiers(layout);
            String tierFull = "x".repeat((int) (layout.chunkSize() * layout.chunksPerTier() / 3));
            large.add(KeySegments.segmentOf(layout, "k1"), "k1", tierFull);
            large.add(KeySegments.segmentOf(layout, "k1"), "k1", tierFull);
            large.add(KeySegments.segmentOf(layout, "k2"), "k2", "v");
            assertThat(large.atMost())
                    .as("one segment's records need more than a tier: one per record")
                    .isEqualTo(3);

            PassTiers outsideBmp = new PassTiers(layout);
            outsideBmp.add(0, "k\uD83D\uDE00", "v");
            outsideBmp.add(0, "k\uD83D\uDE00", "v");
            assertThat(outsideBmp.atMost())
                    .as("a key whose segment may be another: one per record")
                    .isEqualTo(2);
        }
    }
}
