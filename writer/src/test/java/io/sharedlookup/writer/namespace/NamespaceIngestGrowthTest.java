package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.DiskFit;
import io.sharedlookup.writer.store.Fill;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Growth driven by bytes rather than counts: values far larger than the sample the generation was sized with. */
class NamespaceIngestGrowthTest {
    @TempDir
    Path store;

    @Test
    void valuesMuchLargerThanSampledNeverReachChroniclesTierLimit() throws Exception {
        NamespaceDirectory directory = NamespaceDirectory.open(new StoreLayout(store), "big", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        ingest.start(offsets, offsets, -1, null);
        // Sampled: tiny values. The generation is sized for them.
        for (int i = 0; i < 10; i++) {
            ingest.apply("k" + i, "v", positions);
        }
        ingest.afterBatch(true, positions);
        String large = "x".repeat(2000);
        // Then values about 2000x larger than sampled, in batches of 500 (the writer's max.poll.records).
        for (int i = 10; i < 5000; i++) {
            ingest.apply("k" + i, large, positions);
            if (i % 500 == 0) {
                ingest.afterBatch(true, positions);
            }
        }
        ingest.afterBatch(true, positions);
        NamespaceStatus status = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(status.entries()).isEqualTo(5000);
        assertThat(status.generation()).isGreaterThan(1);
        assertThat(status.lastError()).isNull();
        ingest.close(positions);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            assertThat(reader.lookup("big").size()).isEqualTo(5000);
            assertThat(reader.lookup("big").get("k4999")).isEqualTo(large);
            assertThat(reader.lookup("big").get("k3")).isEqualTo("v");
        }
    }

    /**
     * A value far larger than any sampled (under --max-value-bytes) does not fit the generation's layout: the writer
     * moves to a copy made to take it instead of skipping it (the key used to keep its old value).
     */
    @Test
    void aValueTooLargeForTheGenerationsLayoutIsStoredInACopyMadeForIt() throws Exception {
        storedInACopyMadeForIt("wide", "x".repeat(300_000), SharedLookupStore.builder(store));
    }

    /**
     * The same for a value of chars outside the BMP: Chronicle stores each of its surrogates in 3 bytes (6 a pair, not
     * standard UTF-8's 4), so the copy must be made for those bytes or it cannot take the value either.
     */
    @Test
    void aValueOfSurrogatePairsTooLargeForTheLayoutIsStoredInACopyMadeForIt() throws Exception {
        storedInACopyMadeForIt(
                "emoji",
                "\uD83D\uDE42".repeat(50_000), // 300,000 bytes in the file, 200,000 in UTF-8
                // a patient reader: mapping the copy's long tiers on a loaded machine may take longer than the default
                SharedLookupStore.builder(store).lockTimeout(Duration.ofSeconds(30)));
    }

    /** Ten tiny values (the sample the generation is sized for), then {@code huge} for one of their keys. */
    private void storedInACopyMadeForIt(String namespace, String huge, SharedLookupStore.Builder readers)
            throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        NamespaceIngest ingest = TestNamespaces.startedWithTenKeys(directory, positions, i -> "v");
        ingest.afterBatch(true, positions);
        ingest.apply("k3", huge, positions);
        ingest.afterBatch(true, positions);
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError()).isNull();
        ingest.close(positions);
        try (SharedLookupStore reader = readers.open()) {
            assertThat(reader.lookup(namespace).get("k3")).isEqualTo(huge);
            assertThat(reader.lookup(namespace).size()).isEqualTo(10);
        }
    }

    @Test
    void aGenerationThatCannotBeCreatedStallsVisiblyAndRecovers() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceDirectory directory = NamespaceDirectory.open(layout, "full", StorePermissions.DEFAULT);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        NamespaceIngest ingest = TestNamespaces.startedWithTenKeys(directory, positions, i -> "v" + i);
        // The namespace directory vanishes (as good as a file system that refuses new files): no generation.
        Path dir = layout.namespaceDir("full");
        TempTrees.delete(dir);
        assertThat(ingest.afterBatch(true, positions)).isInstanceOf(Applied.Stalled.class);
        NamespaceStatus stalled = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(stalled.state()).isEqualTo(NamespaceStatus.State.STALLED);
        assertThat(stalled.lastError()).contains("cannot create a generation");

        // Room again: the records are read again, the generation is built and published, the error is gone.
        java.nio.file.Files.createDirectories(dir);
        ingest.apply("k10", "v10", positions);
        ingest.afterBatch(true, positions);
        NamespaceStatus recovered = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(recovered.state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(recovered.lastError()).isNull();
        assertThat(recovered.entries()).isEqualTo(11);
        ingest.close(positions);
    }

    /**
     * The same stall on an empty topic: no record is held back for the generation, so none is stored when it can be
     * made at last. Before, the stall's error stayed in {@code /namespaces} on the live namespace until a first record
     * came (days, on a quiet topic), and hid every error after it.
     */
    @Test
    void aGenerationThatCannotBeCreatedForAnEmptyTopicStallsAndRecoversWithoutARecord() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceDirectory directory = NamespaceDirectory.open(layout, "quiet", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        ingest.start(offsets, offsets, -1, null);
        Path dir = layout.namespaceDir("quiet");
        TempTrees.delete(dir);
        assertThat(ingest.afterBatch(true, positions)).isInstanceOf(Applied.Stalled.class);
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError()).contains("cannot create a generation");

        java.nio.file.Files.createDirectories(dir);
        ingest.afterBatch(true, positions);
        NamespaceStatus recovered = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(directory.published()).isPresent();
        assertThat(recovered.state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(recovered.lastError()).isNull();
        assertThat(recovered.entries()).isZero();
        ingest.close(positions);
    }

    /**
     * A namespace past 1.8 times its capacity whose growth failed stalls until growth may be tried again, and the
     * record read again after the pause is checked before it goes in: it used to count as one more of the batch, so
     * it and up to 63 after it went in while growth still waited (and storing it hid growth's failure).
     */
    @Test
    void aNamespaceTooFullToWaitForGrowthLetsNoRecordInAtThePausesEnd() throws Exception {
        Positions positions = topic -> Map.of(0, 0L);
        NamespaceIngest ingest = publishedWithTenEntries("crowded", positions);
        ingest.apply("k10", "v10", positions); // the live generation changing, as it does below
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();

        try (OwnFileSizeLimit limit = noBiggerGeneration()) {
            int next = 11;
            Applied.Stalled stalled = null;
            while (stalled == null && next < 3 * capacity) {
                if (ingest.apply("k" + next, "v" + next, positions) instanceof Applied.Stalled e) {
                    stalled = e;
                } else {
                    next++;
                }
            }
            assertThat(stalled).as("a stall before 3 x capacity %d", capacity).isNotNull();
            NamespaceStatus full = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat((double) full.entries() / capacity).isGreaterThanOrEqualTo(1.8);
            assertThat(full.state()).isEqualTo(NamespaceStatus.State.STALLED);
            assertThat(full.lastError()).contains("cannot grow");

            // The pause is over; the same record is read again while growth still cannot be made.
            String key = "k" + next;
            String value = "v" + next;
            assertThat(ingest.apply(key, value, positions)).isInstanceOf(Applied.Stalled.class);
            NamespaceStatus still = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat(still.entries()).isEqualTo(full.entries());
            assertThat(still.lastError()).isEqualTo(full.lastError());
        }
        ingest.abandon();
    }

    /**
     * A rebuild starts growth afresh: a failure of the generation it replaces must not defer the new one's growth
     * (the new generation used to fill up to 1.8 times its capacity and stall with the old, stale failure).
     */
    @Test
    void aRebuildForgetsGrowthsFailuresOfTheGenerationItReplaces() throws Exception {
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        NamespaceIngest ingest = publishedWithTenEntries("again", positions);
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();
        try (OwnFileSizeLimit limit = noBiggerGeneration()) {
            for (int next = 10;
                    ingest.status(Map.of(), null, Positions.UNKNOWN).lastError() == null && next < 3 * capacity;
                    next++) {
                ingest.apply("k" + next, "v" + next, positions);
            }
        }
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError())
                .as("growth failed")
                .contains("cannot grow");

        // Room again, and the topic was truncated: the namespace is rebuilt, and its new generation fills up.
        ingest.rebuild("truncated", offsets, offsets, null, -1);
        for (int i = 0; i < 10; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.afterBatch(true, positions);
        for (int i = 10; i < 2 * capacity; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.afterBatch(true, positions);
        NamespaceStatus grown = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(grown.lastError()).isNull();
        assertThat(grown.state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(grown.capacity()).isGreaterThan(capacity);
        assertThat(grown.entries()).isEqualTo(2 * capacity);
        ingest.close(positions);
    }

    /**
     * While growth waits for its retry time the namespace is STALLED, and {@code /namespaces} shows growth's failure,
     * which says why, even when another step (a checkpoint) failed since; once the retry time has passed, the most
     * recent failure shows, and the state is no longer STALLED.
     */
    @Test
    void whileGrowthWaitsItsFailureShowsOverALaterCheckpointFailure() throws Exception {
        Positions positions = topic -> Map.of(0, 0L);
        NamespaceIngest ingest = publishedWithTenEntries("waiting", positions);
        long lastApply = System.nanoTime();
        try (OwnFileSizeLimit limit = noBiggerGeneration()) {
            // Bounded by the capacity of now, not of the start: on a slow machine the time-throttled free-space look
            // can grow the first generation early into one still under the limit, and the growth after it fails.
            for (int next = 10;
                    ingest.status(Map.of(), null, Positions.UNKNOWN).lastError() == null
                            && next
                                    < 3
                                            * ingest.status(Map.of(), null, Positions.UNKNOWN)
                                                    .capacity();
                    next++) {
                lastApply = System.nanoTime(); // growth fails within the apply that sets lastError, not before it
                ingest.apply("k" + next, "v" + next, positions);
            }
        }
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError())
                .as("growth failed")
                .contains("cannot grow");
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(16)) {
            ingest.checkpoint(topic -> Map.of(0, 5000L)); // then the manifest cannot be written either
        }
        NamespaceStatus waiting = ingest.status(Map.of(), null, Positions.UNKNOWN);
        Assumptions.assumeTrue(
                System.nanoTime() - lastApply < GrowthRetry.DISK_FULL_RETRY_MILLIS * 1_000_000L * 9 / 10,
                "growth's retry time had not passed when the status was taken");
        assertThat(waiting.state()).isEqualTo(NamespaceStatus.State.STALLED);
        assertThat(waiting.lastError()).contains("cannot grow");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            NamespaceStatus after = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat(after.lastError()).startsWith("cannot write the manifest: ");
            assertThat(after.state()).isEqualTo(NamespaceStatus.State.LIVE);
        });
        ingest.abandon();
    }

    /**
     * A value too large for the target's layout arriving while a background growth runs: the copy made to take it
     * is the growth (it used to be a copy of the same capacity that abandoned the growth, deferred the next one by
     * 30 s and showed "growth abandoned" in {@code /namespaces} although nothing failed).
     */
    @Test
    void aLargeValueWhileABackgroundGrowthRunsIsCopiedIntoTheGrownGeneration() throws Exception {
        Positions positions = topic -> Map.of(0, 0L);
        NamespaceIngest ingest = publishedWithTenEntries("busy", positions);
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();
        int entries = (int) Math.ceil(capacity * Fill.GROW_AT) + 1;
        for (int i = 10; i < entries; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.afterBatch(true, positions); // filled to GROW_AT: a bigger generation is filled in the background
        String huge = "x".repeat(300_000);
        ingest.apply("k3", huge, positions);
        NamespaceStatus grown = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(grown.capacity()).isGreaterThan(capacity);
        assertThat(grown.lastError()).isNull();
        ingest.afterBatch(true, positions);
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError()).isNull();
        ingest.close(positions);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            assertThat(reader.lookup("busy").get("k3")).isEqualTo(huge);
            assertThat(reader.lookup("busy").size()).isEqualTo(entries);
        }
    }

    /** The same without a background copy yet: a target filled to GROW_AT is copied into a grown generation. */
    @Test
    void aLargeValueForATargetDueToGrowIsCopiedIntoTheGrownGeneration() throws Exception {
        Positions positions = topic -> Map.of(0, 0L);
        NamespaceIngest ingest = publishedWithTenEntries("due", positions);
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();
        for (int i = 10; i < capacity * Fill.GROW_AT + 1; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.apply("k3", "x".repeat(300_000), positions);
        NamespaceStatus grown = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(grown.capacity()).isGreaterThan(capacity);
        assertThat(grown.lastError()).isNull();
        ingest.abandon();
    }

    /**
     * A value whose generation every segment would need tiers of 80 MiB for (256 of them: 20 GiB, over a quarter of the
     * 40 GiB disk played here) is skipped as oversize, loudly, and the namespace carries on. It used to stall the topic
     * and retry for ever: no retry could make such a generation.
     */
    @Test
    void aValueNoMappableGenerationCouldTakeIsSkippedAsOversizeWithoutAStall() throws Exception {
        try (AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> 40L << 30)) {
            skipsAValueNoGenerationCouldTake();
        }
    }

    private void skipsAValueNoGenerationCouldTake() throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), "vast", StorePermissions.DEFAULT);
        WriterMetrics metrics = new WriterMetrics();
        NamespaceIngest ingest = TestNamespaces.over(directory, metrics);
        Map<Integer, Long> end = Map.of(0, 700_000L); // a generation for about a million entries: 256 segments
        Positions positions = topic -> end;
        ingest.start(Map.of(0, 0L), end, -1, null);
        for (int i = 0; i < 10; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.afterBatch(true, positions);
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).capacity()).isGreaterThanOrEqualTo(1_000_000);

        String vast = "x".repeat(80 << 20);
        assertThat(ingest.apply("k3", vast, positions)).isInstanceOfSatisfying(Applied.Skipped.class, e -> {
            assertThat(e.error()).isTrue();
            assertThat(e.reason())
                    .contains("'k3'")
                    .contains("over 25% of the 42949672960 bytes free")
                    .contains("--max-value-bytes");
        });
        NamespaceStatus after = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(after.state()).isNotEqualTo(NamespaceStatus.State.STALLED);
        assertThat(after.lastError()).isNull();
        assertThat(metrics.oversize.labelValues("vast").get()).isEqualTo(1.0);
        ingest.apply("k10", "v10", positions); // the partition carries on
        ingest.close(positions);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            assertThat(reader.lookup("vast").get("k3")).isEqualTo("v3");
            assertThat(reader.lookup("vast").get("k10")).isEqualTo("v10");
        }
    }

    /**
     * A resumed generation's largest entry was not seen in this run and is no longer taken from its file's limit
     * (which kept every later generation's tiers that long): the growth copy that meets it learns it, starts again
     * sized for it, and keeps it.
     */
    @Test
    void aGrowthOfAResumedGenerationKeepsTheLargeValueItHolds() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        Positions positions = topic -> Map.of(0, 0L);
        NamespaceIngest first = TestNamespaces.over(NamespaceDirectory.open(layout, "kept", StorePermissions.DEFAULT));
        first.start(Map.of(0, 0L), Map.of(0, 0L), -1, null);
        for (int i = 0; i < 1500; i++) { // the averages a resumed generation is sampled for stay small
            first.apply("k" + i, "v" + i, positions);
        }
        first.afterBatch(true, positions);
        String huge = "x".repeat(300_000);
        first.apply("huge", huge, positions);
        first.afterBatch(true, positions);
        first.close(positions);

        NamespaceIngest resumed =
                TestNamespaces.over(NamespaceDirectory.open(layout, "kept", StorePermissions.DEFAULT));
        resumed.start(Map.of(0, 0L), Map.of(0, 0L), -1, null);
        long capacity = resumed.status(Map.of(), null, Positions.UNKNOWN).capacity();
        int entries = 1501;
        for (int i = 1500;
                resumed.status(Map.of(), null, Positions.UNKNOWN).capacity() == capacity && i < 4 * capacity;
                i++) {
            resumed.apply("k" + i, "v" + i, positions);
            entries++;
            if (i % 500 == 0) {
                resumed.afterBatch(true, positions);
            }
        }
        resumed.afterBatch(true, positions);
        assertThat(resumed.status(Map.of(), null, Positions.UNKNOWN).capacity())
                .as("grown")
                .isGreaterThan(capacity);
        assertThat(resumed.status(Map.of(), null, Positions.UNKNOWN).lastError())
                .isNull();
        resumed.close(positions);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            assertThat(reader.lookup("kept").get("huge")).isEqualTo(huge);
            assertThat(reader.lookup("kept").size()).isEqualTo(entries);
        }
    }

    /** A new ingest for {@code namespace} whose first generation, sized for and holding ten small entries, is live. */
    private NamespaceIngest publishedWithTenEntries(String namespace, Positions positions) throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        ingest.start(positions.of(namespace), positions.of(namespace), -1, null);
        for (int i = 0; i < 10; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        ingest.afterBatch(true, positions);
        return ingest;
    }

    /**
     * No bigger generation can be made (the file system refuses its size) while the live one still takes records:
     * this JVM's file size limit lies between what a generation of {@link #publishedWithTenEntries} grows to at 1.8
     * times its capacity (49,152 bytes, measured) and what a bigger one needs from the start (118,784 at 1.5 times).
     */
    private static OwnFileSizeLimit noBiggerGeneration() throws Exception {
        return OwnFileSizeLimit.lowerTo(100_000);
    }
}
