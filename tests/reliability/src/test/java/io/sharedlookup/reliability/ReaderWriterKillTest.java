package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios b, b2 and c: several reader JVMs look up keys as fast as they can while (b) one of them is killed with
 * SIGKILL mid-lookup, again and again, (b2) one of them pauses 10 s inside a scan, or (c) the writer is killed with
 * SIGKILL while they read. Readers run without any JVM flag: they take no lock and write nothing, so in b and b2 the
 * writer must never replace or rebuild anything.
 */
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReaderWriterKillTest {
    private static final int KEYS = 5_000;
    private static final int READERS = 3;
    private static final long LOCK_TIMEOUT_MILLIS = 50;
    /**
     * Where no writer dies mid-change (b, b2) a lookup that times out would be a real hang, not a writer preempted
     * mid-put on two busy cores (tens of ms): those readers wait up to a second, and none may time out.
     */
    private static final long NO_KILL_LOCK_TIMEOUT_MILLIS = 1_000;
    /** The documented bound: lockTimeout plus scheduling delay on an overloaded two-core box (as the other tests). */
    private static final long LOOKUP_BOUND_MILLIS = LOCK_TIMEOUT_MILLIS + 950;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private final List<ChildJvm> readers = new ArrayList<>();
    private WriterProcess writer;

    @AfterEach
    void closeChildren() {
        readers.forEach(Children::close);
        readers.clear();
        if (writer != null) {
            writer.close();
        }
    }

    private Path fill(String topic) throws Exception {
        broker.createTopic(topic, 3);
        for (int i = 0; i < KEYS; i++) {
            broker.send(topic, "k" + i, "v" + i + "@0");
        }
        broker.send(topic, "probe", "start");
        broker.flush();
        return Stores.temp(topic + "-");
    }

    private ChildJvm startReader(String name, Path store, String topic, long seed) throws Exception {
        return startReader(name, store, topic, seed, LOCK_TIMEOUT_MILLIS);
    }

    private ChildJvm startReader(String name, Path store, String topic, long seed, long lockTimeoutMillis)
            throws Exception {
        ChildJvm r = Readers.start(name, store, topic, KEYS, lockTimeoutMillis, seed);
        Readers.awaitWarm(r);
        return r;
    }

    /** Updates {@code n} random keys, then sets the probe; returns once the broker has them. */
    private static void update(String topic, Random random, int n, int round, String probe) {
        for (int i = 0; i < n; i++) {
            int k = random.nextInt(KEYS);
            broker.send(topic, "k" + k, "v" + k + "@" + round);
        }
        broker.send(topic, "probe", probe);
        broker.flush();
    }

    private static boolean sawProbe(ChildJvm reader, String probe) {
        return reader.printed(l -> l.equals("PROBE " + probe));
    }

    /** The slowest call any reader reported in STATS lines after line index {@code from[i]}. */
    private long slowestSince(List<Integer> from) {
        long worst = 0;
        for (int i = 0; i < readers.size(); i++) {
            worst = Math.max(worst, slowestOf(readers.get(i), from.get(i)));
        }
        return worst;
    }

    /** The slowest call {@code reader} reported in STATS lines after line index {@code from}. */
    private static long slowestOf(ChildJvm reader, int from) {
        long worst = 0;
        List<String> lines = reader.lines();
        for (int j = from; j < lines.size(); j++) {
            if (lines.get(j).startsWith("STATS")) {
                worst = Math.max(worst, Readers.maxMillis(lines.get(j)));
            }
        }
        return worst;
    }

    /** Lookups that timed out since line index {@code from[i]} of each reader, summed over the readers. */
    private long timeoutsSince(List<Integer> from) {
        long sum = 0;
        for (int i = 0; i < readers.size(); i++) {
            sum += timeoutsOf(readers.get(i), from.get(i));
        }
        return sum;
    }

    /**
     * Lookups {@code reader} reported as timed out after line index {@code from}: its last STATS line's count (since
     * it started) less the count of its last STATS line before {@code from} (or of its first after, when none).
     */
    private static long timeoutsOf(ChildJvm reader, int from) {
        long before = -1;
        long first = -1;
        long last = -1;
        List<String> lines = reader.lines();
        for (int j = 0; j < lines.size(); j++) {
            if (lines.get(j).startsWith("STATS")) {
                long count = Readers.timeouts(lines.get(j));
                if (j < from) {
                    before = count;
                } else {
                    last = count;
                    first = first < 0 ? count : first;
                }
            }
        }
        return last < 0 ? 0 : last - (before >= 0 ? before : first);
    }

    private List<Integer> marks() {
        List<Integer> out = new ArrayList<>();
        readers.forEach(r -> out.add(r.lines().size()));
        return out;
    }

    /** Every key rewritten; the store (read through reader-lib) must equal the topic: no segment stayed locked. */
    private void assertEverySegmentStillWritable(String topic, Path store) {
        for (int i = 0; i < KEYS; i++) {
            broker.send(topic, "k" + i, "v" + i + "@final");
        }
        broker.flush();
        Map<String, String> expected = broker.latest(topic);
        AtomicReference<String> diff = new AtomicReference<>();
        await("every key's final value visible")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    diff.set(Contents.diff(Stores.dump(store, topic), expected));
                    return diff.get() == null;
                });
    }

    private long rebuilds(String topic) {
        return (long) writer.metric("sharedlookup_writer_rebuilds_total{namespace=\"" + topic + "\"}");
    }

    @Test
    void readersKilledMidLookupNeverStopTheWritersUpdates() throws Exception {
        long seed = 0xB2L;
        int trials = Suite.trials(10, 50);
        String topic = "readerkill";
        Path store = fill(topic);
        Random random = new Random(seed);
        writer = Children.writer("b-writer", broker.bootstrap(), store, topic);
        writer.awaitReady(Duration.ofSeconds(120));
        long generation = Stores.publishedGeneration(store, topic);
        long rebuildsAtStart = rebuilds(topic); // the first build from the topic counts as one
        for (int i = 0; i < READERS; i++) {
            readers.add(startReader("b-reader-" + i, store, topic, seed + i, NO_KILL_LOCK_TIMEOUT_MILLIS));
        }
        int failures = 0;
        long worstFresh = 0;
        long killedSlowest = 0;
        long killedTimeouts = 0;
        List<Integer> start = marks();
        for (int trial = 0; trial < trials; trial++) {
            int victim = random.nextInt(READERS);
            LockSupport.parkNanos(Duration.ofMillis(50 + random.nextInt(400)).toNanos());
            ChildJvm dead = readers.get(victim);
            Children.kill(dead); // mid-lookup: the readers do nothing else
            long killed = System.nanoTime();
            Children.close(dead);
            String probe = "b-" + trial;
            // Updates land in every segment, including any the dead reader left read-locked.
            update(topic, random, 500, trial + 1, probe);
            try {
                await("the other readers see update " + probe)
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> readers.stream().filter(r -> r != dead).allMatch(r -> sawProbe(r, probe)));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                failures++;
            }
            worstFresh = Math.max(worstFresh, (System.nanoTime() - killed) / 1_000_000);
            killedSlowest = Math.max(killedSlowest, slowestOf(dead, start.get(victim)));
            killedTimeouts += timeoutsOf(dead, start.get(victim));
            ChildJvm replacement = startReader(
                    "b-reader-" + victim + "-after-" + trial,
                    store,
                    topic,
                    seed + 100 + trial,
                    NO_KILL_LOCK_TIMEOUT_MILLIS);
            readers.set(victim, replacement);
            start.set(victim, replacement.lines().size());
        }
        long slowest = Math.max(killedSlowest, slowestSince(start));
        long timeouts = killedTimeouts + timeoutsSince(start);
        assertEverySegmentStillWritable(topic, store);
        assertThat(writer.jvm.isAlive()).isTrue();
        long replacements =
                (long) writer.metric("sharedlookup_writer_lock_replacements_total{namespace=\"" + topic + "\"}");
        long rebuilds = rebuilds(topic) - rebuildsAtStart;
        Suite.figures(
                "b-reader-kill",
                "reader JVM kill -9 mid-lookup (3 concurrent readers)",
                seed,
                trials,
                failures,
                worstFresh,
                slowest,
                "recovery = kill until the surviving readers see the next update; " + "lock replacements "
                        + replacements + ", rebuilds " + rebuilds);
        assertThat(failures)
                .as("updates that did not reach the readers within 30 s")
                .isZero();
        assertThat(slowest).isLessThanOrEqualTo(LOOKUP_BOUND_MILLIS);
        assertThat(timeouts)
                .as("lookups that timed out (a killed reader leaves nothing to wait for)")
                .isZero();
        assertThat(replacements).as("lock replacements: readers hold no lock").isZero();
        assertThat(rebuilds)
                .as("rebuilds: nothing a reader does makes the writer rebuild")
                .isZero();
        assertThat(Stores.publishedGeneration(store, topic))
                .as("the generation readers read")
                .isEqualTo(generation);
    }

    @Test
    void readerPausedInsideAScanNeverMakesTheWriterWaitOrRebuild() throws Exception {
        long seed = 0xB3L;
        String topic = "readerpause";
        Path store = fill(topic);
        Random random = new Random(seed);
        writer = Children.writer("b2-writer", broker.bootstrap(), store, topic);
        writer.awaitReady(Duration.ofSeconds(120));
        long generation = Stores.publishedGeneration(store, topic);
        long rebuildsAtStart = rebuilds(topic);
        readers.add(startReader("b2-reader", store, topic, seed, NO_KILL_LOCK_TIMEOUT_MILLIS));
        List<Integer> start = marks();
        ChildJvm pausing =
                Children.startWithoutFlags("b2-pausing-scan", PausingScanMain.class, store.toString(), topic, "10000");
        readers.add(pausing);
        start.add(0); // the pausing scan prints no STATS lines
        pausing.awaitLine(Duration.ofSeconds(60), "PAUSED"::equals);
        long worstFresh = 0;
        int failures = 0;
        int rounds = 0;
        // Updates to every segment while the scan is stopped inside one: each must reach the other reader at once.
        while (!pausing.printed(l -> l.startsWith("SCANNED")) && rounds < 40) {
            String probe = "b2-" + rounds;
            long sent = System.nanoTime();
            update(topic, random, 200, ++rounds, probe);
            try {
                await("the other reader sees " + probe)
                        .atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> sawProbe(readers.get(0), probe));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                failures++;
            }
            worstFresh = Math.max(worstFresh, (System.nanoTime() - sent) / 1_000_000);
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
        pausing.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("SCANNED"));
        long rebuilds = rebuilds(topic) - rebuildsAtStart;
        long replacements =
                (long) writer.metric("sharedlookup_writer_lock_replacements_total{namespace=\"" + topic + "\"}");
        Suite.figures(
                "b2-reader-pause",
                "reader JVM paused 10 s inside forEach while updates flow",
                seed,
                rounds,
                failures,
                worstFresh,
                0,
                "freshness = update sent until the other reader sees it; lock replacements " + replacements
                        + ", rebuilds " + rebuilds);
        assertThat(rounds).as("updates sent during the pause").isGreaterThan(5);
        assertThat(failures).isZero();
        assertThat(worstFresh)
                .as("slowest update to reach the other reader, ms")
                .isLessThan(1000);
        assertThat(replacements).isZero();
        assertThat(rebuilds).isZero();
        assertThat(timeoutsSince(start))
                .as("the other reader's lookups that timed out")
                .isZero();
        assertThat(Stores.publishedGeneration(store, topic)).isEqualTo(generation);
        assertEverySegmentStillWritable(topic, store);
    }

    @Test
    void writerKilledWhileReadersReadLookupsStayBoundedAndServiceComesBack() throws Exception {
        long seed = 0xC3L;
        int trials = Suite.trials(2, 10);
        String topic = "writerkill";
        Path store = fill(topic);
        Random random = new Random(seed);
        writer = Children.writer("c-writer", broker.bootstrap(), store, topic);
        writer.awaitReady(Duration.ofSeconds(120));
        for (int i = 0; i < READERS; i++) {
            readers.add(startReader("c-reader-" + i, store, topic, seed + i));
        }
        int failures = 0;
        long worstRecovery = 0;
        long worstLookup = 0;
        for (int trial = 0; trial < trials; trial++) {
            // Keep the writer busy putting, so the kill lands mid-update at a seeded moment.
            Random updates = new Random(seed + 1000 + trial);
            int round = 1000 * (trial + 1);
            Thread busy = new Thread(
                    () -> {
                        for (int i = 0; i < 20; i++) {
                            update(topic, updates, 2_000, round + i, "busy-" + round + "-" + i);
                        }
                    },
                    "busy-updates");
            busy.start();
            LockSupport.parkNanos(Duration.ofMillis(300 + random.nextInt(1500)).toNanos());
            List<Integer> from = marks();
            writer.kill();
            long killed = System.nanoTime();
            busy.join();
            writer.close();
            writer = Children.writer("c-writer-" + trial, broker.bootstrap(), store, topic);
            String probe = "c-" + trial;
            update(topic, random, 10, round + 500, probe);
            try {
                await("full service: every reader sees " + probe)
                        .atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> readers.stream().allMatch(r -> sawProbe(r, probe)) || !writer.jvm.isAlive());
                if (!writer.jvm.isAlive()) {
                    failures++;
                }
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                failures++;
            }
            worstRecovery = Math.max(worstRecovery, (System.nanoTime() - killed) / 1_000_000);
            writer.awaitReady(Duration.ofSeconds(120));
            // Three more STATS windows: the slowest call of the recovery period is reported, and none times out now.
            List<Integer> now = marks();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                for (int i = 0; i < readers.size(); i++) {
                    List<String> lines = readers.get(i).lines();
                    long stats = lines.subList(now.get(i), lines.size()).stream()
                            .filter(l -> l.startsWith("STATS"))
                            .count();
                    if (stats < 3) {
                        return false;
                    }
                }
                return true;
            });
            worstLookup = Math.max(worstLookup, slowestSince(from));
            assertThat(timeoutsSince(now))
                    .as("lookups that timed out after service came back, trial %d", trial)
                    .isZero();
        }
        assertEverySegmentStillWritable(topic, store);
        Suite.figures(
                "c-writer-kill-readers",
                "writer kill -9 while 3 reader JVMs read",
                seed,
                trials,
                failures,
                worstRecovery,
                worstLookup,
                "recovery = kill until every reader sees an update made after the "
                        + "restart (includes the restarted writer's rebuild); lookup bound " + LOOKUP_BOUND_MILLIS
                        + " ms (lockTimeout 50 ms + scheduling slack)");
        assertThat(failures).isZero();
        assertThat(worstLookup).isLessThanOrEqualTo(LOOKUP_BOUND_MILLIS);
    }
}
