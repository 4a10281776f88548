package io.sharedlookup.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Settings shared by every scenario: short form (default build) or full form ({@code -Dreliability.full=true}),
 * fixed seeds, and where the figures go. Each scenario writes one JSON file; {@code RenderReport} turns them into the
 * table of docs/reliability.md.
 */
final class Suite {
    static final boolean FULL = Boolean.getBoolean("reliability.full");
    static final Path LOGS = Path.of("target", "child-logs");
    static final Path ROOT = Path.of(System.getProperty("reliability.rootDir", "..")).toAbsolutePath().normalize();
    private static final Path FIGURES = Path.of(System.getProperty("reliability.figuresDir",
            "target/reliability-figures"));

    private Suite() {
    }

    /** Trials for the current form. */
    static int trials(int shortForm, int fullForm) {
        return FULL ? fullForm : shortForm;
    }

    static Duration duration(Duration shortForm, Duration fullForm) {
        return FULL ? fullForm : shortForm;
    }

    /**
     * Records one scenario's figures. Times in milliseconds; negative means "not measured by this scenario".
     */
    static void figures(String id, String scenario, long seed, int trials, int failures, long worstRecoveryMillis,
                        long worstLookupMillis, String note) {
        String json = String.format(Locale.ROOT,
                "{\"id\":\"%s\",\"scenario\":\"%s\",\"form\":\"%s\",\"seed\":%d,\"trials\":%d,\"failures\":%d,"
                        + "\"worstRecoveryMillis\":%d,\"worstLookupMillis\":%d,\"note\":\"%s\",\"recordedAt\":\"%s\"}%n",
                esc(id), esc(scenario), FULL ? "full" : "short", seed, trials, failures, worstRecoveryMillis,
                worstLookupMillis, esc(note), java.time.Instant.now());
        try {
            Files.createDirectories(FIGURES);
            Files.writeString(FIGURES.resolve(id + ".json"), json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ");
    }
}
