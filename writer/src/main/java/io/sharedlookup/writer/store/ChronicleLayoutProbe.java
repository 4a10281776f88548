package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, when the writer starts, that the Chronicle Map it runs lays files out as readers assume: readers hard-code
 * Chronicle's segment-header and tier-counter offsets, its hash (XXH64 and how a hash picks a segment and a slot) and
 * its entry encoding (stop-bit sizes, per-char UTF-8), and a different Chronicle jar would make them answer wrong
 * ABSENTs, not fail. So a small probe map is written through Chronicle, into a temporary file, with keys and values
 * that exercise each assumption (long and non-ASCII text, sizes over one byte, enough entries to add extra tiers), and
 * read back through reader-lib's own reader: every entry must read back as written, an unknown key must be absent,
 * and the entry count (segment headers and tier counters) must agree.
 *
 * <p>Cost, measured on a 2-core host (ChronicleLayoutProbeTest prints it): 2.4 s as the first Chronicle map of the
 * JVM, almost all of it Chronicle loading and generating its classes, which the writer's first namespace would pay
 * a moment later otherwise; 40 to 300 ms for later probes.
 *
 * <p>A writer killed during the probe leaves its folder behind; the next probe in the store deletes it (see
 * {@link ProbeFolders}).
 */
public final class ChronicleLayoutProbe {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleLayoutProbe.class);
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);
    /** Sized for fewer entries than {@link #probeEntries} puts, so that segments overflow into extra tiers. */
    private static final GenerationSizing SIZING = new GenerationSizing(64, 8, 16, 8.0);

    private ChronicleLayoutProbe() {}

    /**
     * Runs the probe in a temporary file in {@code dir} (deleted afterwards).
     *
     * @throws IllegalStateException in one line when readers would misread this Chronicle Map's files
     * @throws IOException           when the probe file cannot be written
     */
    // The claim is held for the probe's whole run (so that another writer's deleteStale leaves the folder alone) and
    // never referenced inside it: the "try" lint's complaint is the point.
    @SuppressWarnings("try")
    public static void check(Path dir) throws IOException {
        long start = System.nanoTime();
        ProbeFolders.deleteStale(dir);
        Path probeDir = Files.createTempDirectory(dir, ProbeFolders.PREFIX);
        try (ProbeFolders.Claim claim = ProbeFolders.claim(probeDir)) {
            Path file = probeDir.resolve("probe.cmap");
            try (GenerationFile probe = GenerationFile.create(file, SIZING, StorePermissions.DEFAULT)) {
                Map<String, String> entries = probeEntries();
                entries.forEach((k, v) -> probe.put(k, v, TIMEOUT));
                verify(probe, probe.layout(), entries);
            }
        } finally {
            ProbeFolders.delete(probeDir);
        }
        LOG.info(
                "Chronicle Map layout checked against what readers assume in {} ms",
                (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Reads {@code probe}'s file through reader-lib as {@code layout} describes it and compares with {@code entries}.
     *
     * @throws IllegalStateException in one line naming the first difference
     */
    static void verify(GenerationFile probe, MapLayout layout, Map<String, String> entries) {
        MappedMap map;
        try {
            map = MappedMap.open(probe.file(), SequenceFile.of(probe.file()), layout);
        } catch (RuntimeException e) {
            throw mismatch(layout, "the probe file does not open as readers open it (" + e.getMessage() + ")");
        }
        try {
            StringBuilder value = new StringBuilder();
            for (Map.Entry<String, String> e : entries.entrySet()) {
                int found = read(map, e.getKey(), value);
                if (found != MappedMap.PRESENT || !value.toString().equals(e.getValue())) {
                    throw mismatch(
                            layout,
                            "key '" + e.getKey() + "' read back as "
                                    + (found == MappedMap.PRESENT ? "'" + value + "'" : "absent") + ", not '"
                                    + e.getValue() + "'");
                }
            }
            if (read(map, "never-put", value) != MappedMap.ABSENT) {
                throw mismatch(layout, "a key never put read back as present");
            }
            long size = map.size(TIMEOUT);
            if (size != entries.size()) {
                throw mismatch(layout, "the entry count read back as " + size + ", not " + entries.size());
            }
        } finally {
            map.close();
        }
    }

    private static int read(MappedMap map, String key, StringBuilder value) {
        try {
            return map.getInto(key, value, TIMEOUT);
        } catch (RuntimeException e) {
            value.setLength(0);
            value.append(e.getMessage());
            return MappedMap.TIMED_OUT;
        }
    }

    /** Keys and values that exercise each assumption: ASCII ids, long keys, multi-byte chars, long values. */
    static Map<String, String> probeEntries() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (int i = 0; i < 600; i++) {
            entries.put("id-" + i, "value " + i);
        }
        entries.put("a key longer than sixteen chars", "long key");
        entries.put("clé-été", "valeur accentuée");
        entries.put("キー", "値 \uD83D\uDE00 (a surrogate pair)");
        entries.put("empty", "");
        entries.put("long value", "x".repeat(300)); // a two-byte size
        return entries;
    }

    private static IllegalStateException mismatch(MapLayout layout, String what) {
        return new IllegalStateException("Chronicle Map " + layout.chronicleMapVersion() + " on this writer's class "
                + "path lays files out differently from what readers assume (" + what + "): run the writer with the "
                + "Chronicle Map version it was built and released with");
    }
}
