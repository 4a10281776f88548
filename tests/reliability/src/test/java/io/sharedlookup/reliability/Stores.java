package io.sharedlookup.reliability;

import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** Reads a whole namespace through reader-lib, and compares contents with readable failures. */
final class Stores {
    private Stores() {
    }

    static Path temp(String prefix) throws Exception {
        Path dir = Path.of("target", "stores");
        Files.createDirectories(dir);
        return Files.createTempDirectory(dir.toAbsolutePath(), prefix);
    }

    /** The generation the namespace's manifest publishes now. */
    static long publishedGeneration(Path store, String namespace) throws java.io.IOException {
        return io.sharedlookup.internal.store.Manifest.read(
                new io.sharedlookup.internal.store.StoreLayout(store).manifest(namespace)).generation();
    }

    static Map<String, String> dump(Path store, String namespace) {
        return TestStores.contents(store, namespace);
    }

    /** Null when equal, else a short description of the first differences. */
    static String diff(Map<String, String> actual, Map<String, String> expected) {
        List<String> diffs = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            if (!Objects.equals(actual.get(k), expected.get(k))) {
                diffs.add("'" + abbreviate(k) + "': expected " + abbreviate(expected.get(k)) + " but was "
                        + abbreviate(actual.get(k)));
            }
        }
        return diffs.isEmpty() ? null : diffs.size() + " of " + keys.size() + " keys differ, e.g. "
                + diffs.subList(0, Math.min(5, diffs.size()));
    }

    private static String abbreviate(String s) {
        return s == null || s.length() < 60 ? s : s.substring(0, 60) + "…(" + s.length() + " chars)";
    }
}
