package io.sharedlookup.reliability;

import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Scenario stores under target/stores, and what a namespace holds (compared with {@code Contents.diff}). */
final class Stores {
    private Stores() {}

    static Path temp(String prefix) throws Exception {
        Path dir = Path.of("target", "stores");
        Files.createDirectories(dir);
        return Files.createTempDirectory(dir.toAbsolutePath(), prefix);
    }

    /** The generation the namespace's manifest publishes now. */
    static long publishedGeneration(Path store, String namespace) throws java.io.IOException {
        return io.sharedlookup.internal.store.Manifest.read(
                        new io.sharedlookup.internal.store.StoreLayout(store).manifest(namespace))
                .generation();
    }

    static Map<String, String> dump(Path store, String namespace) {
        return TestStores.contents(store, namespace);
    }
}
