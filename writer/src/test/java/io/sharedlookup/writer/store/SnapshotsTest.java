package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.CapturedLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots taken beside a live writer, and a new store seeded from one (issue "Many hosts", item 3). */
class SnapshotsTest {
    /** A namespace that takes any snapshot of it. */
    private static final Function<Manifest, Optional<String>> ANY = m -> Optional.empty();

    @TempDir
    Path dir;

    private static Map<String, String> content(int n, String tag) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put("k" + i, "v" + i + tag);
        }
        return m;
    }

    /**
     * The snapshot is sized by a first pass that counts the entries; when the namespace more than doubles before the
     * copy (and takes a value far larger than any counted), the copy used to fail with Chronicle's tier limit. It is
     * now made again in a generation sized for what it found.
     */
    @Test
    void aNamespaceThatGrowsManyTimesOverBetweenCountAndCopyIsStillSnapshotted() throws Exception {
        Path store = dir.resolve("store");
        Path snapshot = dir.resolve("snapshot");
        Map<String, String> expected = content(100, "");
        try (TestStores.Published live = TestStores.publish(store, "users", content(10_000, ""))) {
            // A roomy live generation holding 100 entries when the snapshot counts them.
            for (int i = 100; i < 10_000; i++) {
                live.generation.remove("k" + i, TestStores.TIMEOUT);
            }
            String huge = "h".repeat(50_000); // the live generation takes it; one sized from the count does not
            Snapshots.Taken taken = Snapshots.take(store, "users", snapshot, StorePermissions.DEFAULT, () -> {
                for (int i = 100; i < 8_000; i++) {
                    live.generation.put("k" + i, "v" + i, TestStores.TIMEOUT);
                    expected.put("k" + i, "v" + i);
                }
                live.generation.put("huge", huge, TestStores.TIMEOUT);
                expected.put("huge", huge);
            });
            assertThat(taken.entries()).isEqualTo(8_001);
            assertThat(TestStores.contents(snapshot, "users")).isEqualTo(expected);
        }
    }

    @Test
    void aSnapshotTakenWhileTheWriterUpdates_seedsAStoreThatResumesFromItsOffsetsWithItsDigest() throws Exception {
        Path store = dir.resolve("store");
        Path snapshot = dir.resolve("snapshot");
        Path seeded = dir.resolve("seeded");
        Map<String, String> base = content(5_000, "");
        try (TestStores.Published live = TestStores.publish(store, "users", base)) {
            Manifest before = live.writer.published().orElseThrow();
            AtomicBoolean stop = new AtomicBoolean();
            Thread updates = new Thread(() -> {
                for (int round = 0; !stop.get(); round++) {
                    // Applied, not yet checkpointed: the manifest keeps the offsets the snapshot records.
                    live.generation.put("k" + (round % 5_000), "updated-" + round, TestStores.TIMEOUT);
                    if (round % 10 == 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(100_000); // ~50k updates/s: load, not sync
                    }
                }
            });
            updates.start();
            Snapshots.Taken taken;
            try {
                taken = Snapshots.take(store, "users", snapshot, StorePermissions.DEFAULT);
            } finally {
                stop.set(true);
                updates.join();
            }
            assertThat(taken.entries()).isEqualTo(5_000);
            assertThat(taken.manifest().offsets())
                    .as("the offsets from before the copy")
                    .isEqualTo(before.offsets());
            assertThat(taken.manifest().writerState()).isEqualTo(Manifest.WriterState.CLOSED);
            assertThat(taken.manifest().contentDigest()).isEqualTo(taken.digest());
            assertThat(TestStores.contents(snapshot, "users").keySet()).isEqualTo(base.keySet());
        }

        StoreLayout layout = new StoreLayout(seeded);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT);
                NamespaceDirectory items = NamespaceDirectory.open(layout, "items", StorePermissions.DEFAULT)) {
            assertThat(Snapshots.seed(snapshot, writer, ANY)).isTrue();
            assertThat(Snapshots.seed(snapshot, writer, ANY))
                    .as("never over a namespace the store has")
                    .isFalse();
            assertThat(Snapshots.seed(snapshot, items, ANY))
                    .as("no snapshot of it")
                    .isFalse();
        }
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(seeded)))
                .as("a store root created for a seed has the store's directory mode")
                .isEqualTo("rwxr-x---");
        Map<String, String> copied = TestStores.contents(snapshot, "users");
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            assertThat(writer.canResume()).isTrue();
            GenerationFile g = writer.resume();
            assertThat(ContentDigest.hex(g.contentDigest()))
                    .isEqualTo(ContentDigest.hex(
                            Manifest.read(layout.manifest("users")).contentDigest()));
            writer.closeCleanly(g, writer.published().orElseThrow().offsets(), true, false);
        }
        assertThat(TestStores.contents(seeded, "users")).isEqualTo(copied);
    }

    /**
     * The counting pass sizes the snapshot in UTF-8 bytes, as Chronicle stores entries: counted in chars, a non-ASCII
     * value's generation was made for half its size (or a third), refused it, and the whole copy was made twice.
     */
    @Test
    void theCountingPassMeasuresNonAsciiEntriesInUtf8Bytes() {
        EntrySizes counts = new EntrySizes();
        counts.countStored("ключ", "é".repeat(40_000)); // 8 + 80,000 bytes, 40,004 chars
        counts.countStored("k", "€€"); // 1 + 6 bytes
        GenerationSizing sizing = counts.forCopy();
        assertThat(sizing.largestEntryBytes()).isEqualTo(80_008);
        assertThat(sizing.averageKeyBytes()).isEqualTo((8 + 1) / 2.0 * 1.2);
        assertThat(sizing.averageValueBytes()).isEqualTo((80_000 + 6) / 2.0 * 1.2);
    }

    @Test
    void aSeedDirectoryThatIsGone_seedsNothingAndSaysSo() throws Exception {
        Path gone = dir.resolve("gone");
        try (NamespaceDirectory writer = NamespaceDirectory.open(
                        new StoreLayout(dir.resolve("seeded")), "users", StorePermissions.DEFAULT);
                CapturedLog log = CapturedLog.of(Snapshots.class)) {
            assertThat(Snapshots.seed(gone, writer, ANY)).isFalse();
            assertThat(writer.published()).isEmpty();
            assertThat(log.warnings())
                    .singleElement()
                    .asString()
                    .contains(gone.toString())
                    .contains("does not exist");
        }
    }

    @Test
    void aSnapshotWhoseEntriesDoNotGiveItsDigest_isRefusedBeforeReadersSeeIt() throws Exception {
        Path snapshot = snapshotOf100();
        // Damaged on the way between hosts: the manifest's digest no longer describes the entries.
        Path manifest = new StoreLayout(snapshot).manifest("users");
        Manifest m = Manifest.read(manifest);
        Files.writeString(
                manifest,
                m.toText().replace(ContentDigest.hex(m.contentDigest()), ContentDigest.hex(m.contentDigest() ^ 1)));
        assertRefusedLeavingNothing(snapshot, ANY, StoreFormatException.class, "gives content digest");
    }

    @Test
    void aSnapshotOfAnotherTopic_isRefused() throws Exception {
        Path snapshot = snapshotOf100();
        assertRefusedLeavingNothing(
                snapshot,
                m -> Optional.of("it was built from topic '" + m.topic() + "'"),
                IOException.class,
                "built from topic 'topic'");
    }

    @Test
    void aSnapshotFileThatIsAPipe_isRefusedAtOnce() throws Exception {
        Path snapshot = snapshotOf100();
        Manifest m = Manifest.read(new StoreLayout(snapshot).manifest("users"));
        Path sequences = SequenceFile.of(snapshot.resolve("users").resolve(m.dataFile()));
        Files.delete(sequences);
        Process mkfifo = new ProcessBuilder("mkfifo", sequences.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> assertRefusedLeavingNothing(snapshot, ANY, IOException.class, "not a regular file"));
    }

    @Test
    void aSnapshotWithAReverseIndex_seedsWithIt() throws Exception {
        Map<String, String> content = new HashMap<>();
        for (int i = 0; i < 1_000; i++) {
            content.put("k" + i, "v" + (i % 300)); // most values held by several keys
        }
        Path snapshot = dir.resolve("snapshot");
        try (TestStores.Published live = TestStores.publish(dir.resolve("store"), "users", content, true, true)) {
            Snapshots.take(dir.resolve("store"), "users", snapshot, StorePermissions.DEFAULT);
        }
        StoreLayout layout = new StoreLayout(dir.resolve("seeded"));
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            assertThat(Snapshots.seed(snapshot, writer, ANY)).isTrue();
        }
        try (SharedLookupStore store = SharedLookupStore.open(layout.storeDir())) {
            assertThat(store.lookup("users").keysOf("v7")).containsExactlyInAnyOrder("k7", "k307", "k607", "k907");
        }
        assertThat(TestStores.contents(layout.storeDir(), "users")).isEqualTo(content);
    }

    private Path snapshotOf100() throws Exception {
        Path snapshot = dir.resolve("snapshot");
        try (TestStores.Published live = TestStores.publish(dir.resolve("store"), "users", content(100, ""))) {
            Snapshots.take(dir.resolve("store"), "users", snapshot, StorePermissions.DEFAULT);
        }
        return snapshot;
    }

    /** The seed fails saying why, nothing is published, and nothing it copied is left in the namespace. */
    private void assertRefusedLeavingNothing(
            Path snapshot, Function<Manifest, Optional<String>> refusal, Class<? extends Exception> failure, String why)
            throws Exception {
        StoreLayout layout = new StoreLayout(dir.resolve("seeded"));
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            assertThatThrownBy(() -> Snapshots.seed(snapshot, writer, refusal))
                    .isInstanceOf(failure)
                    .hasMessageContaining(why);
            assertThat(writer.published()).isEmpty();
        }
        try (var left = Files.list(layout.namespaceDir("users"))) {
            assertThat(left.map(f -> f.getFileName().toString())).containsOnly("writer.lock");
        }
        assertThat(TestStores.contents(layout.storeDir(), "users")).containsOnlyKeys("<unreadable>");
    }
}
