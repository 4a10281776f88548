package io.sharedlookup.reliability;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.ReaderProbe;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The scenarios' reader JVMs: the fixtures' {@link ReaderProbe} in its {@code load} mode (random lookups, {@code READY},
 * {@code PROBE} and {@code STATS} lines), and what its output says.
 */
final class Readers {
    private Readers() {}

    /** A reader of {@code keys} keys {@code k0..}, as users run one: no JVM flag (reader-lib needs none). */
    static ChildJvm start(String name, Path store, String namespace, int keys, long lockTimeoutMillis, long seed)
            throws IOException {
        return ChildJvm.start(
                name,
                Suite.LOGS,
                List.of(),
                ReaderProbe.class,
                "load",
                store.toString(),
                namespace,
                Integer.toString(keys),
                Long.toString(lockTimeoutMillis),
                Long.toString(seed));
    }

    /** Lookups after which a reader JVM counts as warm (its lookup path JIT-compiled). */
    static final long WARM_LOOKUPS = 100_000;

    /**
     * Waits until a started reader printed READY and then became warm; returns the number of lines it had printed
     * by then, so that callers measure only later STATS lines. The lookup bound is about locks and generation
     * switches, not a cold JVM: on a loaded two-core box the first thousands of calls run interpreted and load
     * classes, and single calls there took over a second.
     */
    static int awaitWarm(ChildJvm reader) {
        reader.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("READY"));
        reader.awaitLine(Duration.ofSeconds(120), l -> l.startsWith("STATS") && lookups(l) >= WARM_LOOKUPS);
        return reader.lines().size();
    }

    private static long lookups(String statsLine) {
        int i = statsLine.indexOf("lookups=") + "lookups=".length();
        return Long.parseLong(statsLine.substring(i, statsLine.indexOf(' ', i)));
    }

    /** The timeouts of a STATS line: lookups that timed out since the reader started. */
    static long timeouts(String statsLine) {
        int i = statsLine.indexOf("timeouts=") + "timeouts=".length();
        return Long.parseLong(statsLine.substring(i, statsLine.indexOf(' ', i)));
    }

    /** The maxMillis of a STATS line. */
    static long maxMillis(String statsLine) {
        int i = statsLine.indexOf("maxMillis=");
        int j = statsLine.indexOf(' ', i);
        return Long.parseLong(statsLine.substring(i + "maxMillis=".length(), j < 0 ? statsLine.length() : j));
    }
}
