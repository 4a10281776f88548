package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario e2: the store's file system fills up while the topic keeps growing. The file system is real — a small
 * tmpfs mounted for the test — so the writer meets ENOSPC exactly where a full disk gives it: when a bigger
 * generation is preallocated and when Chronicle extends the live file for an extra tier. The writer must keep
 * serving what it published, pause the topic (never write into space the file system did not give it, which would
 * end the JVM with SIGBUS), retry by itself, and catch up once space is freed — without rebuilding.
 *
 * <p>Needs root (to mount the tmpfs); skipped with a reason otherwise. CI runs as root.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class DiskFullTest {
    private static final long SEED = 0xE2L;
    private static final int BASE = 2_000;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private static void fill(String topic, int from, int to, String tag) {
        String pad = "x".repeat(120);
        for (int i = from; i < to; i++) {
            broker.send(topic, "k" + i, "v" + i + "@" + tag + pad);
        }
        broker.flush();
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.trim());
        }
    }

    /** Writes {@code filler} until the file system has no space left; returns the bytes it took. */
    private static long fillUp(Path filler) throws IOException {
        long written = 0;
        try (FileOutputStream out = new FileOutputStream(filler.toFile())) {
            for (int chunk = 1 << 20; chunk >= 512; chunk /= 2) {
                byte[] bytes = new byte[chunk];
                try {
                    while (true) {
                        out.write(bytes);
                        written += chunk;
                    }
                } catch (IOException noSpace) {
                    // next, smaller chunk: leaves less than 512 bytes free
                }
            }
        }
        return written;
    }

    @Test
    void writerPausesOnAFullFileSystemKeepsServingAndCatchesUpOnceThereIsRoom() throws Exception {
        Path mount = Stores.temp("disk-full-");
        try {
            run("mount", "-t", "tmpfs", "-o", "size=24m,mode=0755", "tmpfs", mount.toString());
        } catch (IOException e) {
            Assumptions.abort("needs root to mount a small tmpfs (" + e.getMessage() + ")");
        }
        String topic = "full";
        String ns = "{namespace=\"" + topic + "\"}";
        broker.createTopic(topic, 1);
        fill(topic, 0, BASE, "0");
        Path store = mount.resolve("store");
        long slowest = 0;
        long recovery;
        try (WriterProcess w = Children.writer("e2-writer", broker.bootstrap(), store, topic)) {
            w.awaitReady(Duration.ofSeconds(120));
            double rebuilds = w.metric("sharedlookup_writer_rebuilds_total" + ns); // the first build counts as one
            Path filler = mount.resolve("filler");
            fillUp(filler);

            // Ten times the keys: the live generation needs extra tiers, and growth a bigger file. Neither fits.
            fill(topic, BASE, BASE * 10, "1");
            await("the writer stalls on the full file system, retries, and stays alive")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreException(WriterProcess.NotAnswering.class)
                    .until(() -> !w.jvm.isAlive() || w.metric("sharedlookup_writer_stalls_total" + ns) >= 3);
            assertThat(w.jvm.isAlive())
                    .as("writer alive; output: %s", w.jvm.lines())
                    .isTrue();
            assertThat(String.join("\n", w.jvm.lines())).doesNotContain("InternalError", "SIGBUS");
            assertThat(w.get("/health").statusCode()).isEqualTo(200);
            assertThat(w.get("/namespaces").body()).contains("STALLED").containsIgnoringCase("space");
            // What was published is served throughout.
            try (SharedLookupStore local = SharedLookupStore.open(store)) {
                Lookup lookup = local.lookup(topic);
                long t0 = System.nanoTime();
                for (int i = 0; i < BASE; i += 7) {
                    assertThat(lookup.get("k" + i)).startsWith("v" + i + "@0");
                }
                slowest = (System.nanoTime() - t0) / 1_000_000;
            }

            // Room again: the writer carries on by itself, with nothing lost and no rebuild.
            long freed = System.nanoTime();
            Files.delete(filler);
            Map<String, String> expected = broker.latest(topic);
            AtomicReference<String> diff = new AtomicReference<>();
            await("store equals the topic once there is room")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        diff.set(Contents.diff(Stores.dump(store, topic), expected));
                        return diff.get() == null || !w.jvm.isAlive();
                    });
            assertThat(diff.get()).as("writer output: %s", w.jvm.lines()).isNull();
            recovery = (System.nanoTime() - freed) / 1_000_000;
            assertThat(w.metric("sharedlookup_writer_rebuilds_total" + ns)).isEqualTo(rebuilds);
            assertThat(w.jvm.isAlive()).isTrue();
        } finally {
            run("umount", "-l", mount.toString());
        }
        Suite.figures(
                "e2-disk-full",
                "store's file system full (24 MB tmpfs filled up) while the topic grows 10x, " + "then room again",
                SEED,
                1,
                0,
                recovery,
                slowest,
                "live generation served throughout; writer paused and retried without dying; recovery = filler "
                        + "deleted until the store equals the topic, no rebuild");
    }
}
