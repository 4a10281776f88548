package io.sharedlookup.writer.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's status file: only ever a regular file of its own. */
class WriterHeartbeatTest {
    @TempDir
    Path store;

    /** A FIFO where the status file goes would block the writer's open for ever: it is refused in one line instead. */
    @Test
    void aFifoInPlaceOfTheStatusFileIsRefusedNotOpened() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        Path dir = Files.createDirectories(layout.namespaceDir("users"));
        Path fifo = WriterStatusDescriptor.of(dir);
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                assertThatThrownBy(() -> WriterHeartbeat.start(layout, List.of("users"), StorePermissions.DEFAULT,
                        Map::of)).isInstanceOf(IOException.class).hasMessageContaining("is not a regular file"));
    }
}
