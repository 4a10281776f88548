package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.ReaderProbe;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario e: the topic grows tenfold while reader JVMs read; then it grows again while the writer cannot create
 * files larger than the live generation. The "disk full" is a real kernel limit, not a mock: the writer process's
 * soft RLIMIT_FSIZE is lowered with {@code prlimit --pid} (no root mount needed; the JVM ignores SIGXFSZ), so preallocating a bigger generation
 * fails with EFBIG exactly where a full disk fails with ENOSPC — when the file is created and preallocated. The live
 * generation must keep serving, and once the limit is lifted the writer's growth retry must catch up. (A real full
 * file system is scenario e2, {@link DiskFullTest}.)
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class GrowthTest {
    private static final long SEED = 0xE5L;
    private static final int BASE = 1_000;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private static void fill(String topic, int from, int to, String tag) {
        for (int i = from; i < to; i++) {
            broker.send(topic, "k" + i, "v" + i + "@" + tag);
        }
        broker.flush();
    }

    private static long largestGeneration(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".cmap"))
                    .mapToLong(f -> f.toFile().length())
                    .max()
                    .orElse(0);
        }
    }

    private static void prlimit(long pid, String fsize) throws Exception {
        Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--fsize=" + fsize)
                .redirectErrorStream(true)
                .start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(new String(p.getInputStream().readAllBytes()))
                .isZero();
    }

    private static void awaitEqual(Path store, String topic, Duration atMost) {
        Map<String, String> expected = broker.latest(topic);
        AtomicReference<String> diff = new AtomicReference<>();
        await("store equals the topic")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    diff.set(Contents.diff(Stores.dump(store, topic), expected));
                    return diff.get() == null;
                });
    }

    @Test
    void tenfoldGrowthWhileReadingThenGrowthWithoutDiskSpace() throws Exception {
        String topic = "grow";
        String ns = "{namespace=\"" + topic + "\"}";
        broker.createTopic(topic, 3);
        fill(topic, 0, BASE, "0");
        Path store = Stores.temp("grow-");
        List<ChildJvm> readers = new ArrayList<>();
        List<Integer> warmFrom = new ArrayList<>();
        long slowest = 0;
        long growMillis;
        long diskFullRecovery;
        try (WriterProcess w = Children.writer("e-writer", broker.bootstrap(), store, topic);
                SharedLookupStore local = SharedLookupStore.open(store)) {
            w.awaitReady(Duration.ofSeconds(120));
            for (int i = 0; i < 2; i++) {
                ChildJvm r = Children.start(
                        "e-reader-" + i,
                        ReaderProbe.class,
                        "load",
                        store.toString(),
                        topic,
                        Integer.toString(BASE * 10),
                        "50",
                        Long.toString(SEED + i));
                warmFrom.add(Readers.awaitWarm(r));
                readers.add(r);
            }
            long t0 = System.nanoTime();
            fill(topic, BASE, BASE * 10, "1");
            awaitEqual(store, topic, Duration.ofSeconds(120));
            growMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(w.metric("sharedlookup_writer_growths_total" + ns)).isGreaterThanOrEqualTo(1.0);

            // No room for a bigger generation: files may not exceed the largest one that exists.
            long limit = largestGeneration(store.resolve(topic));
            // Only the soft limit: lifting it again needs no privilege (raising a hard limit needs CAP_SYS_RESOURCE).
            prlimit(w.jvm.pid(), limit + ":unlimited");
            double growthsBefore = w.metric("sharedlookup_writer_growths_total" + ns);
            fill(topic, BASE * 10, BASE * 30, "2");
            await("growth fails and is reported")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> w.get("/namespaces").body().contains("cannot"));
            assertThat(w.jvm.isAlive()).isTrue();
            // The live generation keeps serving what it has.
            Lookup lookup = local.lookup(topic);
            for (int i = 0; i < BASE * 10; i += 97) {
                assertThat(lookup.get("k" + i)).isEqualTo("v" + i + (i < BASE ? "@0" : "@1"));
            }
            for (ChildJvm r : readers) {
                int mark = r.lines().size();
                await().atMost(Duration.ofSeconds(5)).until(() -> r.lines().size() > mark + 2);
                assertThat(r.isAlive()).isTrue();
            }
            assertThat(w.metric("sharedlookup_writer_growths_total" + ns)).isEqualTo(growthsBefore);
            // Space comes back: the growth retry (every 2 s after the file system refused) catches up.
            long freed = System.nanoTime();
            prlimit(w.jvm.pid(), "unlimited:unlimited");
            awaitEqual(store, topic, Duration.ofSeconds(120));
            diskFullRecovery = (System.nanoTime() - freed) / 1_000_000;
            for (int i = 0; i < readers.size(); i++) {
                List<String> lines = readers.get(i).lines();
                for (String l : lines.subList(warmFrom.get(i), lines.size())) {
                    if (l.startsWith("STATS")) {
                        slowest = Math.max(slowest, Readers.maxMillis(l));
                    }
                }
            }
        } finally {
            readers.forEach(Children::close);
        }
        Suite.figures(
                "e1-growth",
                "topic grows 10x while 2 reader JVMs read",
                SEED,
                1,
                0,
                growMillis,
                slowest,
                "recovery = time until the store equals the 10x topic (1,000 -> 10,000 keys)");
        Suite.figures(
                "e3-file-size-limit",
                "growth with no room for a bigger file (RLIMIT_FSIZE), then room again",
                SEED,
                1,
                0,
                diskFullRecovery,
                slowest,
                "live generation served throughout; recovery = limit lifted "
                        + "until the store equals the topic (a refused file is retried every 2 s)");
        assertThat(slowest).isLessThanOrEqualTo(1_000);
    }
}
