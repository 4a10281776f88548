package io.sharedlookup.bench;

import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceWriter;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The reference data every benchmark uses: ids {@code 1000000+i} mapped to {@code "User name i"}. */
final class BenchData {
    static final String NAMESPACE = "users";

    private BenchData() {
    }

    static String key(int i) {
        return Integer.toString(1_000_000 + i);
    }

    static String value(int i) {
        return "User name " + i;
    }

    /** Writes {@code entries} entries into a published namespace of a store at {@code dir}. */
    static void writeStore(Path dir, int entries) throws IOException {
        writeStore(dir, entries, false);
    }

    /** Like {@link #writeStore(Path, int)}, optionally with the writer's reverse index. */
    static void writeStore(Path dir, int entries, boolean reverseIndex) throws IOException {
        try (NamespaceWriter writer = NamespaceWriter.open(new StoreLayout(dir), NAMESPACE, StorePermissions.DEFAULT)) {
            GenerationFile generation = writer.createGeneration(GenerationSizing.forExpected(entries, 7, 15),
                    reverseIndex);
            long timeout = TimeUnit.SECONDS.toNanos(1);
            for (int i = 0; i < entries; i++) {
                generation.put(key(i), value(i), timeout);
            }
            writer.publish(generation, NAMESPACE, Map.of(0, (long) entries), true, Map.of());
            generation.close();
        }
    }
}
