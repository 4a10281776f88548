package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.WriterMain;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario i: a fleet of three hosts — three writer JVMs, each with its own store directory as separate hosts have —
 * off the same topic under continuous updates and tombstones. Host A starts cold; host B starts cold, is killed with
 * SIGKILL and restarted; host C starts late from a snapshot of A's store ({@code snapshot}, then {@code --seed}). Once
 * the updates stop, all three must report the same offsets and the same content digest, equal to the digest of an
 * independent consumer's latest value per key, and every key must equal that value.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class FleetTest {
    private static final long SEED = 0x1F7L;
    private static final String TOPIC = "fleet";

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private static Manifest manifest(Path store) throws Exception {
        return Manifest.read(new StoreLayout(store).manifest(TOPIC));
    }

    @Test
    void threeHostsKilledSeededAndColdAgreeOnOffsetsDigestAndEveryKey() throws Exception {
        broker.createTopic(TOPIC, 3);
        Random random = new Random(SEED);
        for (int i = 0; i < 30_000; i++) {
            broker.send(TOPIC, "k" + random.nextInt(12_000), random.nextInt(10) == 0 ? null : "initial-" + i);
        }
        broker.flush();
        Path a = Stores.temp("fleet-a-");
        Path b = Stores.temp("fleet-b-");
        Path c = Stores.temp("fleet-c-");
        Path snapshot = Stores.temp("fleet-snapshot-").resolve("snap");
        SeededUpdates updates = new SeededUpdates(broker, TOPIC, new Random(SEED + 1));
        List<WriterProcess> hosts = new ArrayList<>();
        long coldReadyMillis;
        long seededReadyMillis;
        try {
            long t0 = System.nanoTime();
            WriterProcess hostA = Children.writer("fleet-a", broker.bootstrap(), a, TOPIC);
            hosts.add(hostA);
            hostA.awaitReady(Duration.ofSeconds(120));
            coldReadyMillis = (System.nanoTime() - t0) / 1_000_000;
            updates.start();

            WriterProcess hostB = Children.writer("fleet-b", broker.bootstrap(), b, TOPIC);
            hostB.awaitReady(Duration.ofSeconds(120));
            hostB.kill(); // SIGKILL under updates: the restart rebuilds from the topic
            hostB = Children.writer("fleet-b-restarted", broker.bootstrap(), b, TOPIC);
            hosts.add(hostB);

            // Host C joins late, seeded from a snapshot of A taken while A keeps applying updates.
            ChildJvm snap = Children.start(
                    "fleet-snapshot", WriterMain.class, "snapshot", a.toString(), TOPIC, snapshot.toString());
            assertThat(snap.waitFor()).as("snapshot output: %s", snap.lines()).isZero();
            long t1 = System.nanoTime();
            WriterProcess hostC =
                    Children.writer("fleet-c", broker.bootstrap(), c, TOPIC, "--seed", snapshot.toString());
            hosts.add(hostC);
            hostC.awaitReady(Duration.ofSeconds(120));
            seededReadyMillis = (System.nanoTime() - t1) / 1_000_000;
            String ns = "{namespace=\"" + TOPIC + "\"}";
            assertThat(hostC.metric("sharedlookup_writer_resumes_total" + ns))
                    .as("C resumed from the snapshot")
                    .isEqualTo(1.0);
            assertThat(hostC.jvm.lines()).anyMatch(l -> l.contains("seeded from snapshot"));
            hostB.awaitReady(Duration.ofSeconds(120));

            updates.stopAndJoin();
            Map<String, String> expected = broker.latest(TOPIC);
            long expectedDigest = 0;
            for (Map.Entry<String, String> e : expected.entrySet()) {
                expectedDigest += ContentDigest.of(e.getKey(), e.getValue());
            }
            long want = expectedDigest;
            for (Path store : List.of(a, b, c)) {
                await(store + " agrees with the topic")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> Long.valueOf(want).equals(manifest(store).contentDigest()));
            }
            assertThat(manifest(b).offsets()).isEqualTo(manifest(a).offsets());
            assertThat(manifest(c).offsets()).isEqualTo(manifest(a).offsets());
            for (Path store : List.of(a, b, c)) {
                assertThat(Contents.diff(Stores.dump(store, TOPIC), expected))
                        .as(store.toString())
                        .isNull();
            }
        } finally {
            if (updates.isAlive()) {
                updates.stopAndJoin();
            }
            hosts.forEach(WriterProcess::close);
        }
        Suite.figures(
                "i-fleet",
                "three hosts off one topic under updates: one killed and restarted, one seeded from a "
                        + "snapshot, one cold",
                SEED,
                1,
                0,
                seededReadyMillis,
                -1,
                "all three at the same offsets with the same digest as an independent consumer, every key equal; "
                        + "recovery = seeded host start to ready (" + seededReadyMillis + " ms) vs cold host "
                        + coldReadyMillis + " ms over a 30,000-record topic");
    }
}
