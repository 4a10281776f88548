package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer JVM and several reader JVMs on one store, the writer killed by SIGKILL at random moments. The case of
 * readers killed mid-lookup moved to the reliability suite's scenario b ({@code ReaderWriterKillTest}, with the real
 * writer and a broker): it proves that the surviving readers keep seeing the writer's updates without a timeout and
 * that the writer replaces and rebuilds nothing. Its readers do not check the values they get; the check this class's
 * readers make on every answer (well-formed, never older than one already seen) is now made only while the writer is
 * killed.
 */
class MultiProcessTest {
    private static final String NS = "users";
    private static final int KEYS = 2_000;
    private static final long LOCK_TIMEOUT_MILLIS = SharedLookupStore.DEFAULT_LOCK_TIMEOUT.toMillis();
    /**
     * The documented bound is the lock timeout plus scheduling delay. Five busy JVMs (and Maven) share two cores here,
     * so a call can be descheduled for hundreds of milliseconds (seen: ~900 ms in a CI-like run next to other builds).
     * One second still tells a bounded wait from Chronicle's own 60 s one.
     */
    private static final long MAX_CALL_MILLIS = LOCK_TIMEOUT_MILLIS + 950;

    private static final Pattern STATS =
            Pattern.compile("STATS lookups=(\\d+) invalid=(\\d+) timeouts=(\\d+) maxMillis=(\\d+) generation=(\\d+)");
    private static final Pattern ROUND = Pattern.compile("ROUND (\\d+) gen=(\\d+)");

    @TempDir
    Path store;
    /** Kept after the run (target/child-logs) so a failure can be read. */
    private Path logs;

    private final List<ChildJvm> children = new ArrayList<>();
    private final Random random = new Random(42);

    @BeforeEach
    void logDir(TestInfo test) throws Exception {
        logs = Files.createDirectories(Path.of(
                "target", "child-logs", test.getTestMethod().orElseThrow().getName()));
    }

    @AfterEach
    void killAll() throws Exception {
        for (ChildJvm c : children) {
            c.close();
        }
    }

    private ChildJvm writer(String name, int publishEvery) throws Exception {
        ChildJvm w = ChildJvm.start(
                name,
                logs,
                TestWriterMain.class,
                store.toString(),
                NS,
                Integer.toString(KEYS),
                Integer.toString(publishEvery));
        children.add(w);
        w.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("READY"));
        return w;
    }

    private ChildJvm reader(String name) throws Exception {
        ChildJvm r = ChildJvm.start(
                name,
                logs,
                TestReaderMain.class,
                store.toString(),
                NS,
                Integer.toString(KEYS),
                Long.toString(LOCK_TIMEOUT_MILLIS));
        children.add(r);
        r.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("STATS"));
        return r;
    }

    private static Matcher lastStats(ChildJvm reader) {
        Matcher m = STATS.matcher(reader.awaitLine(Duration.ofSeconds(10), l -> l.startsWith("STATS")));
        assertThat(m.matches()).isTrue();
        return m;
    }

    private static long lastRound(ChildJvm writer) {
        Matcher m = ROUND.matcher(writer.awaitLine(Duration.ofSeconds(30), l -> l.startsWith("ROUND")));
        assertThat(m.matches()).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static long lookups(ChildJvm reader) {
        return Long.parseLong(lastStats(reader).group(1));
    }

    private static void assertHealthy(ChildJvm reader) {
        Matcher m = lastStats(reader);
        assertThat(reader.lines()).noneMatch(l -> l.startsWith("INVALID"));
        assertThat(Long.parseLong(m.group(2))).as("invalid answers").isZero();
        assertThat(Long.parseLong(m.group(4))).as("slowest lookup, ms").isLessThanOrEqualTo(MAX_CALL_MILLIS);
    }

    /**
     * Full service once the reader is on a healthy generation: lookups keep succeeding. A live writer preempted or
     * paused for GC while holding a lock (five JVMs share two cores here, often with other builds) makes the lookups
     * that wait on it time out at the strict lockTimeout bound — four in 5000 were seen on a loaded box — so up to 1%
     * is tolerated. A lock left stuck in the generation the reader uses would time out every lookup of that segment,
     * every time: with the few segments of a 2,000-key generation, hundreds of the next 5000 lookups at 50 ms each, which
     * exceeds both the 1% and the 10 s wait below.
     */
    private static void assertServing(ChildJvm reader) {
        Matcher before = lastStats(reader);
        long lookups = Long.parseLong(before.group(1));
        long timeouts = Long.parseLong(before.group(3));
        String later = reader.awaitLine(Duration.ofSeconds(10), l -> {
            Matcher m = STATS.matcher(l);
            return m.matches() && Long.parseLong(m.group(1)) > lookups + 5_000;
        });
        Matcher after = STATS.matcher(later);
        assertThat(after.matches()).isTrue();
        assertThat(Long.parseLong(after.group(3)) - timeouts)
                .as("timeouts in 5000 lookups on the new generation")
                .isLessThanOrEqualTo(50);
    }

    /** Waits until the writer has completed {@code rounds} more rounds than {@code from}. */
    private static long awaitRounds(ChildJvm writer, long from, int rounds) {
        String line = writer.awaitLine(Duration.ofSeconds(30), l -> {
            Matcher m = ROUND.matcher(l);
            return m.matches() && Long.parseLong(m.group(1)) >= from + rounds;
        });
        Matcher m = ROUND.matcher(line);
        assertThat(m.matches()).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** Waits until the reader's last STATS line shows a generation at least {@code generation}. */
    private static void awaitGeneration(ChildJvm reader, long generation) {
        reader.awaitLine(Duration.ofSeconds(10), l -> {
            Matcher m = STATS.matcher(l);
            return m.matches() && Long.parseLong(m.group(5)) >= generation;
        });
    }

    private static long publishedGeneration(ChildJvm writer) {
        Matcher m = ROUND.matcher(writer.awaitLine(Duration.ofSeconds(30), l -> l.startsWith("ROUND")));
        assertThat(m.matches()).isTrue();
        return Long.parseLong(m.group(2));
    }

    @Test
    void threeReadersFollowAWriterThatUpdatesAndPublishesGenerations() throws Exception {
        ChildJvm writer = writer("writer", 5);
        List<ChildJvm> readers = List.of(reader("reader-1"), reader("reader-2"), reader("reader-3"));
        long round = lastRound(writer);
        awaitRounds(writer, round, 20);
        long generation = publishedGeneration(writer);
        assertThat(generation).as("generations published while reading").isGreaterThanOrEqualTo(3);
        for (ChildJvm r : readers) {
            awaitGeneration(r, generation);
            assertHealthy(r);
            assertThat(lookups(r)).isGreaterThan(1_000);
        }
    }

    @Test
    void killingTheWriterMidUpdateNeverBlocksReadersAndANewGenerationRestoresService() throws Exception {
        List<ChildJvm> readers = new ArrayList<>();
        ChildJvm writer = writer("writer-0", 1_000_000);
        readers.add(reader("reader-1"));
        readers.add(reader("reader-2"));
        readers.add(reader("reader-3"));
        for (int trial = 0; trial < 10; trial++) {
            long round = lastRound(writer);
            awaitRounds(writer, round, 1);
            Thread.sleep(random.nextInt(30)); // a random moment in the update loop, not synchronisation
            writer.kill();
            writer = writer("writer-" + (trial + 1), 1_000_000);
            assertThat(writer.awaitLine(Duration.ofSeconds(1), l -> l.startsWith("READY")))
                    .contains("resumed=false");
            long generation = publishedGeneration(writer);
            awaitRounds(writer, lastRound(writer), 2);
            for (ChildJvm r : readers) {
                awaitGeneration(r, generation);
                assertHealthy(r);
                assertServing(r);
            }
        }
    }
}
