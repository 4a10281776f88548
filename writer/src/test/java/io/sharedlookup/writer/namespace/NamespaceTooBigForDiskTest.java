package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.DiskFit;
import io.sharedlookup.writer.store.Fill;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A namespace that would not fit the disk is told in one line with the figures, before any file is created, whether
 * its first generation (as every rebuild's) or a bigger one for growth is wanted; it carries on once there is room.
 */
class NamespaceTooBigForDiskTest {
    /** What the test's disk plays: far less than a generation of 1,024 entries takes. */
    private static final long FREE = 1_000;

    @TempDir
    Path store;

    @Test
    void aFirstGenerationTooBigForTheDisk_stallsWithTheFigures_andIsMadeOnceThereIsRoom() throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), "first", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        try (AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> FREE)) {
            ingest.start(offsets, offsets, -1, null);
            for (int i = 0; i < 10; i++) {
                ingest.apply("k" + i, "v" + i, positions);
            }
            assertThat(ingest.afterBatch(true, positions)).isInstanceOf(Applied.Stalled.class);
            NamespaceStatus stalled = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat(stalled.state()).isEqualTo(NamespaceStatus.State.STALLED);
            assertTheFigures(stalled.lastError());
        }

        ingest.apply("k10", "v10", positions);
        ingest.afterBatch(true, positions);
        NamespaceStatus recovered = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(recovered.lastError()).isNull();
        assertThat(recovered.entries()).isEqualTo(11);
        ingest.close(positions);
    }

    @Test
    void growthTooBigForTheDisk_saysSoWithTheFigures() throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), "growing", StorePermissions.DEFAULT);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        NamespaceIngest ingest = TestNamespaces.startedWithTenKeys(directory, positions, i -> "v" + i);
        ingest.afterBatch(true, positions);
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();
        try (AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> FREE)) {
            for (int i = 10; i < capacity * Fill.GROW_AT + 1; i++) {
                ingest.apply("k" + i, "v" + i, positions);
            }
            ingest.afterBatch(true, positions);
            NamespaceStatus status = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat(status.capacity()).as("not grown").isEqualTo(capacity);
            assertTheFigures(status.lastError());
        }
        ingest.close(positions);
    }

    private static void assertTheFigures(String error) {
        assertThat(error)
                .doesNotContain("\n")
                .containsPattern("a generation of [0-9,]+ entries")
                .containsPattern("needs [0-9,]+ bytes on disk")
                .contains("has 1,000 bytes free")
                .contains("give the store more disk, or hold fewer entries or smaller values");
    }
}
