package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.testing.WriterProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writers in separate JVMs killed with SIGKILL, stopped with SIGTERM; the broker stopped under a running writer. */
class WriterCrashTest {
    private static final Logger log = LoggerFactory.getLogger(WriterCrashTest.class);
    /** Chooses the bootstrap kill moments; printed so that a failing run can be repeated. */
    private static final long KILL_SEED = 0xA1L;

    private static final Path LOGS = Path.of("target", "child-logs");

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static WriterProcess startWriter(String name, Path store, String topic) throws IOException {
        return WriterProcess.start(
                args -> ChildJvm.start(name, LOGS, WriterMain.class, args), kafka.bootstrap(), store, topic);
    }

    private static boolean ready(int port) {
        try {
            return Http.get(port, "/ready").statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    private static void awaitReady(WriterProcess w) {
        await(w.jvm + " ready")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> ready(w.port) || !w.jvm.isAlive());
        assertThat(w.jvm.isAlive())
                .as("writer alive; output: %s", w.jvm.lines())
                .isTrue();
    }

    @Test
    void killedDuringBootstrapAndSteadyUpdatesThenRestartedConverges() throws Exception {
        String topic = "crash";
        kafka.createTopic(topic, 3);
        Map<String, String> expected = new ConcurrentHashMap<>();
        // Enough history that a rebuild takes a few seconds, so that kills land inside it.
        for (int i = 0; i < 120_000; i++) {
            String key = "id-" + (i % 15_000);
            String value = "initial-" + i;
            kafka.send(topic, key, value);
            expected.put(key, value);
        }
        kafka.flush();
        AtomicBoolean updating = new AtomicBoolean(true);
        Thread updater = new Thread(
                () -> {
                    Random r = new Random(1);
                    long n = 0;
                    while (updating.get()) {
                        String key = "id-" + r.nextInt(20_000);
                        String value = r.nextInt(10) == 0 ? null : "update-" + n++;
                        kafka.send(topic, key, value);
                        if (value == null) {
                            expected.remove(key);
                        } else {
                            expected.put(key, value);
                        }
                        if (n % 20 == 0) {
                            // Load pacing (about 2000 updates/s), not synchronisation: an unpaced producer would bury
                            // the
                            // test in millions of records.
                            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
                        }
                    }
                    kafka.flush();
                },
                "updater");
        updater.start();
        Path store = TestKafka.tempStore();
        Random random = new Random(2);
        Random killDelays = new Random(KILL_SEED);
        log.info("Bootstrap kill delays from seed {}", KILL_SEED);
        int kills = 0;
        int killsBeforePublish = 0;
        try {
            for (int trial = 0; trial < 5; trial++) {
                try (ChildJvm bootstrapping = startWriter("bootstrap-" + trial, store, topic).jvm) {
                    // Killed while it fills a new generation (usually before it publishes it), 0-1.5 s in: the
                    // moment is chosen by the seed, not by what the writer is doing, so kills land mid-fill.
                    bootstrapping.awaitLine(Duration.ofSeconds(60), l -> l.contains("new generation"));
                    LockSupport.parkNanos(
                            Duration.ofMillis(killDelays.nextInt(1500)).toNanos());
                    bootstrapping.kill();
                    kills++;
                    if (!bootstrapping.printed(l -> l.contains("Namespace 'crash': published"))) {
                        killsBeforePublish++;
                    }
                }
                WriterProcess steady = startWriter("steady-" + trial, store, topic);
                try (ChildJvm jvm = steady.jvm) {
                    awaitReady(steady);
                    // Let it apply updates for a while before the kill, at a moment the test does not choose.
                    long target = 100 + random.nextInt(400);
                    await().atMost(Duration.ofSeconds(30)).until(() -> metric(steady.port, topic) >= target);
                    jvm.kill();
                    kills++;
                }
            }
        } finally {
            updating.set(false);
            updater.join();
        }
        assertThat(kills).isEqualTo(10);
        assertThat(killsBeforePublish)
                .as("bootstrap kills that hit an unpublished generation (seed %s)", KILL_SEED)
                .isGreaterThanOrEqualTo(3);

        WriterProcess last = startWriter("final", store, topic);
        try (ChildJvm jvm = last.jvm) {
            awaitReady(last);
            assertThat(jvm.printed(l -> l.contains("did not stop cleanly"))).isTrue();
            await("store converges to the topic (kill seed " + KILL_SEED + ")")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> TestStores.contents(store, topic).equals(new TreeMap<>(expected)));
            long start = System.nanoTime();
            jvm.terminate(Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        }
        Manifest manifest = Manifest.read(new StoreLayout(store).manifest(topic));
        assertThat(manifest.writerState()).isEqualTo(Manifest.WriterState.CLOSED);
        Contents.assertSame(TestStores.contents(store, topic), expected);

        // After the clean stop, the next writer resumes instead of rebuilding.
        WriterProcess resumed = startWriter("resumed", store, topic);
        try (ChildJvm jvm = resumed.jvm) {
            awaitReady(resumed);
            assertThat(jvm.printed(l -> l.contains("resuming generation"))).isTrue();
            jvm.terminate(Duration.ofSeconds(10));
        }
    }

    private static double metric(int port, String namespace) {
        try {
            return Http.metric(
                    Http.get(port, "/metrics").body(),
                    "sharedlookup_writer_records_total{namespace=\"" + namespace + "\"}");
        } catch (Exception e) {
            return 0;
        }
    }

    @Test
    void brokerStoppedAndRestartedWhileTheWriterRuns() throws Exception {
        String topic = "outage";
        kafka.createTopic(topic, 1);
        kafka.send(topic, "before", "1");
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(app.httpPort()));
            kafka.stop();
            await("not ready while Kafka is down")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        var r = Http.get(app.httpPort(), "/ready");
                        return r.statusCode() == 503 && r.body().contains("unreachable");
                    });
            assertThat(Http.get(app.httpPort(), "/lookup/outage/before").body()).isEqualTo("1");
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);
            kafka.start();
            kafka.send(topic, "after", "2");
            kafka.flush();
            await("ready and caught up after Kafka is back")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> ready(app.httpPort())
                            && Http.get(app.httpPort(), "/lookup/outage/after").statusCode() == 200);
        } finally {
            kafka.start(); // a no-op when running; else the class's other tests would fail for want of a broker
            kafka.resetProducer();
        }
    }

    /** A topic of 100 keys (k0..k99 = v1) and an in-process writer on it, ready. */
    private static WriterApp readyWriterOnHundredKeys(String topic, Path store) throws Exception {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 100; i++) {
            kafka.send(topic, "k" + i, "v1");
        }
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .build();
        WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
        await().atMost(Duration.ofSeconds(60)).until(() -> ready(app.httpPort()));
        return app;
    }

    /** The status snapshot is refreshed every 250 ms, so it may trail the data a test has just seen. */
    private static void awaitStatusGenerationAfter(WriterApp app, String topic, long generation) {
        await("status names a generation after " + generation)
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(app.statuses().get(topic).generation()).isGreaterThan(generation));
    }

    private static void dieHoldingSegmentLock(Path store, String topic, String key, String lock) throws Exception {
        try (ChildJvm reader = ChildJvm.start(
                "dies-holding-" + lock + "-lock", LOGS, HoldSegmentLock.class, store.toString(), topic, key, lock)) {
            reader.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("LOCKED"));
            reader.kill();
        }
    }

    @Test
    void aReaderKilledHoldingALockMakesTheWriterReplaceTheGeneration() throws Exception {
        String topic = "stuck";
        Path store = TestKafka.tempStore();
        try (WriterApp app = readyWriterOnHundredKeys(topic, store)) {
            long generation = app.statuses().get(topic).generation();
            dieHoldingSegmentLock(store, topic, "k7", "read");
            kafka.send(topic, "k7", "v2");
            kafka.send(topic, "k8", "v2");
            kafka.flush();
            await("update applied in a replacement generation")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> "v2"
                                    .equals(Http.get(app.httpPort(), "/lookup/stuck/k7")
                                            .body())
                            && "v2"
                                    .equals(Http.get(app.httpPort(), "/lookup/stuck/k8")
                                            .body()));
            awaitStatusGenerationAfter(app, topic, generation);
            assertThat(Http.get(app.httpPort(), "/lookup/stuck/k99").body()).isEqualTo("v1");
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_lock_replacements_total{namespace=\"stuck\"}"))
                    .isEqualTo(1);
        }
    }

    /**
     * Issue #13 item 5: after a clean restart the writer knew no entry sizes (16/32-byte fallbacks), so the copy that
     * replaces a generation left locked overflowed Chronicle's tiers, the ingest thread died and /health stayed ok.
     * Readers can no longer leave locks (they take none), but any process that opens the file through Chronicle can:
     * the copy must be sized for the entries it holds and updates must keep flowing.
     */
    @Test
    void aResumedGenerationOfLargeValuesLeftLockedIsReplacedAndUpdatesKeepFlowing() throws Exception {
        String topic = "resumedbig";
        Path store = TestKafka.tempStore();
        kafka.createTopic(topic, 1);
        String big = "x".repeat(1000);
        for (int i = 0; i < 1000; i++) {
            kafka.send(topic, "k" + i, big + i);
        }
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .build();
        try (WriterApp first = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(first.httpPort()));
        }
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(app.httpPort()));
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_resumes_total{namespace=\"" + topic + "\"}"))
                    .as("resumed after the clean stop")
                    .isEqualTo(1);
            dieHoldingSegmentLock(store, topic, "k7", "read");
            kafka.send(topic, "k7", "after");
            kafka.send(topic, "k1000", "new");
            kafka.flush();
            await("updates applied in a replacement generation")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> "after"
                                    .equals(Http.get(app.httpPort(), "/lookup/" + topic + "/k7")
                                            .body())
                            && "new"
                                    .equals(Http.get(app.httpPort(), "/lookup/" + topic + "/k1000")
                                            .body()));
            assertThat(Http.get(app.httpPort(), "/lookup/" + topic + "/k999").body())
                    .isEqualTo(big + 999);
            assertThat(Http.metric(
                            Http.get(app.httpPort(), "/metrics").body(),
                            "sharedlookup_writer_lock_replacements_total{namespace=\"" + topic + "\"}"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aReaderKilledMidScanMakesTheWriterRebuildFromTheTopic() throws Exception {
        String topic = "scanned";
        Path store = TestKafka.tempStore();
        try (WriterApp app = readyWriterOnHundredKeys(topic, store)) {
            long generation = app.statuses().get(topic).generation();
            // A scan holds each segment's update lock in turn; one dying mid-scan leaves it held, and neither a
            // write to that segment nor a copy of the generation can take it again.
            dieHoldingSegmentLock(store, topic, "k7", "update");
            kafka.send(topic, "k7", "v2");
            kafka.send(topic, "k8", null);
            kafka.flush();
            await("update applied in a generation rebuilt from the topic")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> "v2"
                                    .equals(Http.get(app.httpPort(), "/lookup/scanned/k7")
                                            .body())
                            && Http.get(app.httpPort(), "/lookup/scanned/k8").statusCode() == 404
                            && ready(app.httpPort()));
            awaitStatusGenerationAfter(app, topic, generation);
            assertThat(Http.get(app.httpPort(), "/lookup/scanned/k99").body()).isEqualTo("v1");
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_rebuilds_total{namespace=\"scanned\"}"))
                    .as("the first build and the rebuild")
                    .isEqualTo(2);
            // And it keeps taking updates afterwards.
            kafka.send(topic, "k7", "v3");
            kafka.flush();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> "v3"
                            .equals(Http.get(app.httpPort(), "/lookup/scanned/k7")
                                    .body()));
        }
    }

    @Test
    void topicDeletedAndRecreatedUnderARunningWriterIsRebuilt() throws Exception {
        String topic = "recreated";
        kafka.createTopic(topic, 2);
        for (int i = 0; i < 300; i++) {
            kafka.send(topic, "k" + i, "old-" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(app.httpPort()));
            long generation = app.statuses().get(topic).generation();
            kafka.deleteTopic(topic);
            kafka.createTopic(topic, 2);
            Map<String, String> expected = new TreeMap<>();
            for (int i = 0; i < 20; i++) {
                kafka.send(topic, "k" + i, "new-" + i);
                expected.put("k" + i, "new-" + i);
            }
            kafka.flush();
            // The old positions (about 150 per partition) are past the new end offsets: replaying the new topic
            // over the old generation would keep 280 keys that no longer exist.
            await("the store equals the recreated topic")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> ready(app.httpPort())
                            && app.statuses().get(topic).generation() > generation
                            && "new-3"
                                    .equals(Http.get(app.httpPort(), "/lookup/recreated/k3")
                                            .body()));
            Contents.assertSame(TestStores.contents(store, topic), expected);
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_rebuilds_total{namespace=\"recreated\"}"))
                    .isEqualTo(2);
        } finally {
            kafka.resetProducer();
        }
    }

    @Test
    void brokerUnreachableAtStartServesWhatIsPublishedAndIsNotReady() throws Exception {
        int deadPort = Ports.freePort();
        Path store = TestKafka.tempStore();
        TestStores.publish(store, "users", Map.of("1", "Ada")).close(); // what an earlier run left published
        WriterConfig config = WriterConfig.builder("127.0.0.1:" + deadPort, store)
                // TestStores publishes as from topic "topic": the same topic, or the start is refused as a change.
                .topics(List.of(new TopicBinding("topic", "users"), new TopicBinding("items", "items")))
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);
            var ready = Http.get(app.httpPort(), "/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("users");
            assertThat(Http.get(app.httpPort(), "/namespaces").body()).contains("\"state\" : \"STARTING\"");
            var published = Http.get(app.httpPort(), "/lookup/users/1");
            assertThat(published.statusCode()).isEqualTo(200);
            assertThat(published.body()).isEqualTo("Ada");
            // a namespace never published has nothing to serve yet
            assertThat(Http.get(app.httpPort(), "/lookup/items/1").statusCode()).isEqualTo(404);
        }
    }
}
