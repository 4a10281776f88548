package io.sharedlookup.writer.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's status file: only ever a regular file of its own, saying how current the content is. */
class WriterHeartbeatTest {
    @TempDir
    Path store;

    /** A FIFO where the status file goes would block the writer's open for ever: it is refused in one line instead. */
    @Test
    void aFifoInPlaceOfTheStatusFileIsRefusedNotOpened() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        Path dir = Files.createDirectories(layout.namespaceDir("users"));
        Path fifo = WriterStatusDescriptor.of(dir);
        Process mkfifo =
                new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        assertTimeoutPreemptively(
                Duration.ofSeconds(10),
                () -> assertThatThrownBy(() ->
                                WriterHeartbeat.start(layout, List.of("users"), StorePermissions.DEFAULT, Map::of))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("is not a regular file"));
    }

    /**
     * A live namespace of a quiet topic: the manifest is restamped only every few minutes, but the heartbeat says the
     * time the writer's positions were last current, so that a reader does not take a healthy writer's content for
     * stale. A namespace being rebuilt says the manifest's stamp: readers see the published generation.
     */
    @Test
    void aLiveNamespaceSaysTheWritersOwnCurrentTimeNotOnlyTheManifestsStamp() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "one"))) {
            long stamped = Manifest.read(layout.manifest("users")).updatedAtMillis();
            long current = stamped + 60_000;
            NamespaceStatus live = new NamespaceStatus(
                            "users",
                            "users",
                            NamespaceStatus.State.LIVE,
                            1,
                            1,
                            16,
                            0.1,
                            Map.of(0, 0L),
                            0,
                            null,
                            true,
                            null,
                            Map.of(0, 1L),
                            null)
                    .currentAsOf(current);
            AtomicReference<NamespaceStatus> status = new AtomicReference<>(live);
            try (WriterHeartbeat heartbeat = WriterHeartbeat.start(
                            layout, List.of("users"), StorePermissions.DEFAULT, () -> Map.of("users", status.get()));
                    FileChannel ch = FileChannel.open(
                            WriterStatusDescriptor.of(layout.namespaceDir("users")), StandardOpenOption.READ)) {
                ByteBuffer file = ch.map(FileChannel.MapMode.READ_ONLY, 0, WriterStatusDescriptor.SIZE)
                        .order(ByteOrder.LITTLE_ENDIAN);
                await().atMost(Duration.ofSeconds(5)).until(() -> currentAsOf(file) == current);
                status.set(new NamespaceStatus(
                                "users",
                                "users",
                                NamespaceStatus.State.REBUILDING,
                                1,
                                1,
                                16,
                                0.1,
                                Map.of(),
                                0,
                                null,
                                false,
                                null,
                                Map.of(0, 1L),
                                null)
                        .currentAsOf(current));
                await().atMost(Duration.ofSeconds(5)).until(() -> currentAsOf(file) == stamped);
            }
        }
    }

    private static long currentAsOf(ByteBuffer file) {
        return WriterStatusDescriptor.getLong(file, WriterStatusDescriptor.CURRENT_AS_OF_AT);
    }
}
