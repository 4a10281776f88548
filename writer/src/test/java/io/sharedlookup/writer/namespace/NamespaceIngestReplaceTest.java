package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A synchronous replacement (growth within a batch) whose publish fails leaves no generation file behind. */
class NamespaceIngestReplaceTest {
    @TempDir
    Path store;

    @Test
    void aGrowthWhosePublishFailsDeletesTheGenerationItBuilt() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceDirectory directory = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        NamespaceIngest ingest = TestNamespaces.startedWithTenKeys(directory, positions, i -> "v" + i);
        ingest.afterBatch(true, positions);
        assertThat(directory.published()).isPresent();
        List<String> published = generationFiles(layout);
        assertThat(published).hasSize(1);

        // A non-empty directory where the manifest goes: the next publish fails.
        Path manifest = layout.manifest("users");
        Files.delete(manifest);
        Files.createDirectories(manifest.resolve("in-the-way"));
        // One batch past 1.5 x capacity (1024): grown synchronously, within the batch, and its publish fails.
        for (int i = 10; i < 1700; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).lastError()).contains("cannot grow");
        assertThat(generationFiles(layout))
                .as("no file left by the failed growth")
                .isEqualTo(published);
        ingest.abandon();
    }

    private static List<String> generationFiles(StoreLayout layout) throws Exception {
        try (Stream<Path> files = Files.list(layout.namespaceDir("users"))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".cmap"))
                    .sorted()
                    .toList();
        }
    }
}
