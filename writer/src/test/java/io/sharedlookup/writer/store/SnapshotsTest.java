package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots taken beside a live writer, and a new store seeded from one (issue "Many hosts", item 3). */
class SnapshotsTest {
    @TempDir
    Path dir;

    private static Map<String, String> content(int n, String tag) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put("k" + i, "v" + i + tag);
        }
        return m;
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
            assertThat(taken.manifest().offsets()).as("the offsets from before the copy").isEqualTo(before.offsets());
            assertThat(taken.manifest().writerState()).isEqualTo(Manifest.WriterState.CLOSED);
            assertThat(taken.manifest().contentDigest()).isEqualTo(taken.digest());
            assertThat(TestStores.contents(snapshot, "users").keySet()).isEqualTo(base.keySet());
        }

        StoreLayout layout = new StoreLayout(seeded);
        assertThat(Snapshots.seed(snapshot, layout, "users", StorePermissions.DEFAULT)).isTrue();
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(seeded)))
                .as("a store root created by seeding has the store's directory mode").isEqualTo("rwxr-x---");
        assertThat(Snapshots.seed(snapshot, layout, "users", StorePermissions.DEFAULT))
                .as("never over a namespace the store has").isFalse();
        assertThat(Snapshots.seed(snapshot, layout, "items", StorePermissions.DEFAULT)).as("no snapshot of it")
                .isFalse();
        Map<String, String> copied = TestStores.contents(snapshot, "users");
        try (NamespaceWriter writer = NamespaceWriter.open(layout, "users", StorePermissions.DEFAULT)) {
            writer.verifyDigestOnResume();
            assertThat(writer.canResume()).isTrue();
            GenerationFile g = writer.resume();
            assertThat(ContentDigest.hex(g.contentDigest()))
                    .isEqualTo(ContentDigest.hex(Manifest.read(layout.manifest("users")).contentDigest()));
            writer.closeCleanly(g, writer.published().orElseThrow().offsets(), true, false);
        }
        assertThat(TestStores.contents(seeded, "users")).isEqualTo(copied);
    }

    @Test
    void aSeededGenerationWhoseEntriesDoNotGiveItsDigestIsRefused() throws Exception {
        Path store = dir.resolve("store");
        Path snapshot = dir.resolve("snapshot");
        try (TestStores.Published live = TestStores.publish(store, "users", content(100, ""))) {
            Snapshots.take(store, "users", snapshot, StorePermissions.DEFAULT);
        }
        // Damaged on the way between hosts: the manifest's digest no longer describes the entries.
        Path manifest = new StoreLayout(snapshot).manifest("users");
        Manifest m = Manifest.read(manifest);
        Files.writeString(manifest, m.toText().replace(ContentDigest.hex(m.contentDigest()),
                ContentDigest.hex(m.contentDigest() ^ 1)));
        StoreLayout layout = new StoreLayout(dir.resolve("seeded"));
        Snapshots.seed(snapshot, layout, "users", StorePermissions.DEFAULT);
        try (NamespaceWriter writer = NamespaceWriter.open(layout, "users", StorePermissions.DEFAULT)) {
            writer.verifyDigestOnResume();
            assertThatThrownBy(writer::resume).isInstanceOf(StoreFormatException.class)
                    .hasMessageContaining("gives content digest").hasMessageContaining("rebuilt from its topic");
        }
    }
}
