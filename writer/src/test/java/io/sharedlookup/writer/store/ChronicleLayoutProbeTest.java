package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.MapLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChronicleLayoutProbeTest {
    @TempDir
    Path dir;

    /** The Chronicle Map this build runs lays files out as readers assume; the probe leaves nothing behind. */
    @Test
    void theChronicleMapOfThisBuild_passes_inAFewMilliseconds() throws Exception {
        long first = System.nanoTime();
        ChronicleLayoutProbe.check(dir); // the first map of the JVM: Chronicle's classes load
        System.out.println("Chronicle layout probe, first: " + (System.nanoTime() - first) / 1_000_000 + " ms");
        long millis = 0;
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            ChronicleLayoutProbe.check(dir);
            millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("Chronicle layout probe, classes loaded: " + millis + " ms");
        }
        // a loaded CI host can take far longer than the figure above: this only catches a probe gone pathological
        assertThat(millis).isLessThan(10_000);
        try (var left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    /**
     * A writer killed during its probe leaves the probe's folder behind: the next probe deletes it, and one left by a
     * writer killed before it locked its folder once it is old, but never the folder of a probe still running.
     */
    @Test
    void aProbeFolderLeftByAKilledWriter_isDeletedByTheNextProbe_butNotOneInUse() throws Exception {
        Path killedAfterLocking = Files.createDirectory(dir.resolve(".layout-probe-111"));
        Files.write(killedAfterLocking.resolve("owner.lock"), new byte[0]); // nobody holds its lock any more
        Files.write(killedAfterLocking.resolve("probe.cmap"), new byte[4096]);
        Path killedBeforeLocking = Files.createDirectory(dir.resolve(".layout-probe-222"));
        Files.setLastModifiedTime(
                killedBeforeLocking,
                FileTime.from(Instant.now().minus(ProbeFolders.UNCLAIMED_GRACE).minusSeconds(60)));
        Path justMade = Files.createDirectory(dir.resolve(".layout-probe-333")); // about to be locked
        Path inUse = Files.createDirectory(dir.resolve(".layout-probe-444"));
        Path notAProbe = Files.createDirectory(dir.resolve("users"));
        try (ProbeFolders.Claim running = ProbeFolders.claim(inUse)) {
            ChronicleLayoutProbe.check(dir);
        }
        assertThat(killedAfterLocking).doesNotExist();
        assertThat(killedBeforeLocking).doesNotExist();
        assertThat(justMade).exists();
        assertThat(inUse).exists();
        assertThat(notAProbe).exists();
    }

    /**
     * A Chronicle Map whose hash splits differently from what readers assume (here: one key bit fewer in the
     * hash-lookup slot) would make readers answer absent for present keys: the probe says so in one line.
     */
    @Test
    void aLayoutReadersWouldMisread_isRefusedInOneLine() throws Exception {
        Map<String, String> entries = ChronicleLayoutProbe.probeEntries();
        try (GenerationFile probe = GenerationFile.create(
                dir.resolve("probe.cmap"), new GenerationSizing(64, 8, 16, 8.0), StorePermissions.DEFAULT)) {
            entries.forEach((k, v) -> probe.put(k, v, TimeUnit.SECONDS.toNanos(1)));
            ChronicleLayoutProbe.verify(probe, probe.layout(), entries);
            MapLayout l = probe.layout();
            MapLayout otherHashSplit = new MapLayout(
                    l.chronicleMapVersion(),
                    l.segments(),
                    l.segmentHeadersOffset(),
                    l.segmentHeaderSize(),
                    l.segmentsOffset(),
                    l.tierSize(),
                    l.baseSize(),
                    l.tiersInBulk(),
                    l.tierBulkSize(),
                    l.tierBulkInnerOffset(),
                    l.maxExtraTiers(),
                    l.slotSize(),
                    l.hashLookupCapacity(),
                    l.keyBits() - 1,
                    l.valueBits(),
                    l.countersOffset(),
                    l.entrySpaceOffset(),
                    l.chunkSize(),
                    l.chunksPerTier());
            assertThatThrownBy(() -> ChronicleLayoutProbe.verify(probe, otherHashSplit, entries))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lays files out differently from what readers assume")
                    .hasMessageContaining("read back as absent")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }
}
