package io.sharedlookup.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Settings shared by every scenario: short form (default build) or full form ({@code -Dreliability.full=true}),
 * fixed seeds, and where the figures go. Each scenario writes one JSON file; {@code RenderReport} turns them into the
 * table of docs/reliability.md.
 */
final class Suite {
    static final boolean FULL = Boolean.getBoolean("reliability.full");
    static final Path LOGS = Path.of("target", "child-logs");
    static final Path ROOT = Path.of(System.getProperty("reliability.rootDir", "../.."))
            .toAbsolutePath()
            .normalize();
    private static final Path FIGURES =
            Path.of(System.getProperty("reliability.figuresDir", "target/reliability-figures"));

    private Suite() {}

    /**
     * The scenarios' broker, one per scenario class ({@code @RegisterExtension}): every child JVM still alive is killed
     * by PID before the broker stops after the class's last test.
     */
    static TestKafka broker() {
        return new TestKafka().beforeStop(ChildJvm::killAll);
    }

    /** Trials for the current form. */
    static int trials(int shortForm, int fullForm) {
        return FULL ? fullForm : shortForm;
    }

    static Duration duration(Duration shortForm, Duration fullForm) {
        return FULL ? fullForm : shortForm;
    }

    /** One scenario's figures, as saved in JSON. Times in milliseconds; negative means "not measured here". */
    record Figures(
            String id,
            String scenario,
            String form,
            long seed,
            int trials,
            int failures,
            long worstRecoveryMillis,
            long worstLookupMillis,
            String note,
            String recordedAt) {}

    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Counts the failed and aborted tests of a class, so that a scenario recording its figures in {@code @AfterAll}
     * reports its failures rather than 0 whatever happened (JUnit calls watchers before {@code @AfterAll}).
     */
    static final class FailedTests implements org.junit.jupiter.api.extension.TestWatcher {
        private int failed;

        @Override
        public void testFailed(org.junit.jupiter.api.extension.ExtensionContext context, Throwable cause) {
            failed++;
        }

        @Override
        public void testAborted(org.junit.jupiter.api.extension.ExtensionContext context, Throwable cause) {
            failed++; // a skipped check is not a passed one
        }

        int count() {
            return failed;
        }
    }

    /**
     * Records one scenario's figures. Times in milliseconds; negative means "not measured by this scenario".
     */
    static void figures(
            String id,
            String scenario,
            long seed,
            int trials,
            int failures,
            long worstRecoveryMillis,
            long worstLookupMillis,
            String note) {
        Figures f = new Figures(
                id,
                scenario,
                FULL ? "full" : "short",
                seed,
                trials,
                failures,
                worstRecoveryMillis,
                worstLookupMillis,
                note,
                Instant.now().toString());
        try {
            Files.createDirectories(FIGURES);
            JSON.writeValue(FIGURES.resolve(id + ".json").toFile(), f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
