package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TestStores;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start on a full volume after a clean stop: marking the manifest open needs a few hundred bytes, a rebuild a whole
 * new generation and a replay of the topic. So the writer resumes, and holds every change back until the manifest
 * says open: a kill in between must still find a closed manifest over an unchanged file.
 */
class ResumeOnFullDiskTest {
    @TempDir
    Path store;

    @Test
    void aManifestThatCannotBeMarkedOpen_keepsTheResumeAndHoldsChangesBackUntilItCan() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "one", "2", "two"));
        published.writer.closeCleanly(published.generation, Map.of(0, 2L), true, false);

        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            assertThat(writer.canResume()).isTrue();
            GenerationFile generation;
            // The manifest is rewritten through a new file: with no room for it (here: no file may grow past 16
            // bytes, as on a full disk), marking it open fails.
            try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(16)) {
                generation = writer.resume();
                assertThat(generation.size()).as("resumed, not rebuilt").isEqualTo(2);
                GenerationFile resumed = generation;
                assertThatThrownBy(() -> writer.requireMarkedOpen(resumed))
                        .as("a change must wait")
                        .isInstanceOf(IOException.class);
            }
            assertThat(Manifest.read(layout.manifest("users")).writerState())
                    .as("on disk, until it can be written")
                    .isEqualTo(Manifest.WriterState.CLOSED);

            writer.requireMarkedOpen(generation); // room again
            assertThat(Manifest.read(layout.manifest("users")).writerState()).isEqualTo(Manifest.WriterState.OPEN);
            writer.requireMarkedOpen(generation); // once is enough: nothing more to write
            generation.close();
        }
    }
}
