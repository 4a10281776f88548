package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario d: the broker stops for a while (short form 10 s, full form 60 s) under a running writer and comes back;
 * then the broker loses all its data and the topic is recreated with different content, so the offsets stored with
 * the generation cannot be resumed and the writer must rebuild (d2); then the same happens under the running writer,
 * which must notice by itself (d3).
 */
@Timeout(value = 15, unit = java.util.concurrent.TimeUnit.MINUTES)
class BrokerOutageTest {
    private static final long SEED = 0xD4L;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    /**
     * The broker loses everything; the topic comes back with {@code partitions} partitions and {@code records} keys
     * {@code k0…}, each set to {@code valuePrefix + i}.
     *
     * @return the recreated topic's latest value per key, as the broker has it
     */
    private Map<String, String> wipeAndRecreate(String topic, int partitions, int records, String valuePrefix)
            throws Exception {
        broker.wipeAndRestart();
        broker.createTopic(topic, partitions);
        for (int i = 0; i < records; i++) {
            broker.send(topic, "k" + i, valuePrefix + i);
        }
        broker.flush();
        Map<String, String> latest = broker.latest(topic);
        assertThat(latest).hasSize(records);
        return latest;
    }

    private static String ns(String topic) {
        return "{namespace=\"" + topic + "\"}";
    }

    @Test
    void outageThenRestartThenWipeAndRecreate() throws Exception {
        Duration outage = Suite.duration(Duration.ofSeconds(10), Duration.ofSeconds(60));
        String topic = "outage";
        broker.createTopic(topic, 3);
        for (int i = 0; i < 2_000; i++) {
            broker.send(topic, "k" + i, "before-" + i);
        }
        broker.flush();
        Path store = Stores.temp("outage-");
        long worstLookup;
        long outageRecovery;
        long wipeRecovery;
        try (WriterProcess writer = Children.writer("d-writer", broker.bootstrap(), store, topic);
                SharedLookupStore readers = SharedLookupStore.open(store)) {
            writer.awaitReady(Duration.ofSeconds(120));
            Lookup lookup = readers.lookup(topic);
            broker.stop();
            await("not ready while Kafka is down")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        var r = writer.get("/ready");
                        return r.statusCode() == 503 && r.body().contains("unreachable");
                    });
            // The outage itself: readers keep reading the published store the whole time.
            long worstNanos = 0;
            long end = System.nanoTime() + outage.toNanos();
            StringBuilder value = new StringBuilder();
            int i = 0;
            while (System.nanoTime() < end) {
                long t0 = System.nanoTime();
                assertThat(lookup.getInto("k" + (i % 2_000), value)).isTrue();
                assertThat(value.toString()).isEqualTo("before-" + (i % 2_000));
                worstNanos = Math.max(worstNanos, System.nanoTime() - t0);
                if (++i % 1000 == 0) {
                    Thread.sleep(1);
                }
            }
            assertThat(writer.jvm.isAlive()).isTrue();
            long restarted = System.nanoTime();
            broker.start();
            broker.resetProducer();
            broker.send(topic, "probe", "after-outage");
            broker.flush();
            await("ready and fresh after the outage")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> writer.ready() && "after-outage".equals(lookup.get("probe")));
            outageRecovery = (System.nanoTime() - restarted) / 1_000_000;
            worstLookup = worstNanos / 1_000_000;

            // A clean stop stores offsets (>= 2001 records over 3 partitions) with the generation.
            assertThat(writer.jvm.terminate(Duration.ofSeconds(15)))
                    .as("exit code after SIGTERM")
                    .isIn(0, 143);
        }
        Suite.figures(
                "d1-broker-outage",
                "broker stopped for " + outage.toSeconds() + " s and restarted",
                SEED,
                1,
                0,
                outageRecovery,
                worstLookup,
                "recovery = broker start until the writer is ready and an update made "
                        + "after the restart is visible; lookups served from the store throughout the outage");

        // The broker loses everything; the topic comes back with fewer, different records.
        Map<String, String> expected = wipeAndRecreate(topic, 3, 100, "recreated-");
        long started = System.nanoTime();
        try (WriterProcess writer = Children.writer("d-writer-after-wipe", broker.bootstrap(), store, topic)) {
            writer.awaitReady(Duration.ofSeconds(120));
            AtomicReference<String> diff = new AtomicReference<>();
            await("store equals the recreated topic")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        diff.set(Contents.diff(Stores.dump(store, topic), expected));
                        return diff.get() == null;
                    });
            wipeRecovery = (System.nanoTime() - started) / 1_000_000;
            assertThat(writer.metric("sharedlookup_writer_rebuilds_total" + ns(topic)))
                    .isEqualTo(1.0);
            assertThat(writer.metric("sharedlookup_writer_resumes_total" + ns(topic)))
                    .isZero();
            Suite.figures(
                    "d2-broker-wiped",
                    "broker data wiped, topic recreated, writer restarted",
                    SEED,
                    1,
                    0,
                    wipeRecovery,
                    -1,
                    "stored offsets beyond the new end offsets: rebuild from the new topic; "
                            + "the 1,900 stale keys are gone");

            // d3: the same under the running writer, which must notice by itself: its positions are past the new
            // topic's end (with a different partition count), and replaying the new topic over the old generation
            // would keep the keys that are gone.
            long wipedAt = System.nanoTime();
            Map<String, String> again = wipeAndRecreate(topic, 2, 30, "again-");
            await("store equals the topic recreated under the running writer")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        diff.set(Contents.diff(Stores.dump(store, topic), again));
                        return diff.get() == null && writer.ready();
                    });
            long underRecovery = (System.nanoTime() - wipedAt) / 1_000_000;
            assertThat(writer.metric("sharedlookup_writer_rebuilds_total" + ns(topic)))
                    .isEqualTo(2.0);
            assertThat(writer.jvm.terminate(Duration.ofSeconds(15)))
                    .as("exit code after SIGTERM")
                    .isIn(0, 143);
            Suite.figures(
                    "d3-broker-wiped-under-writer",
                    "broker data wiped and topic recreated (2 partitions " + "instead of 3) under a running writer",
                    SEED,
                    1,
                    0,
                    underRecovery,
                    -1,
                    "recovery = wipe "
                            + "until the store equals the new topic (includes the broker's restart); the running writer "
                            + "rebuilds by itself (rebuilds_total 2), the 70 stale keys are gone");
        }
    }
}
