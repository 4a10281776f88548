package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.store.ManifestFiles;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A wall clock that ran ahead stamps the offsets with a time in the future ({@code updated.at}); a later start with the
 * clock set right must not take them for fresh, or it resumes past deletes compacted away meanwhile. Against a real
 * broker, with a topic whose {@code delete.retention.ms} is shorter than the stop: with a right clock throughout these
 * starts rebuild, and so must they with the stamp an hour ahead.
 */
class ClockAheadTest {
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private final ch.qos.logback.classic.Logger ingestLog =
            (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(NamespaceIngest.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void listen() {
        logged.start();
        ingestLog.addAppender(logged);
    }

    @AfterEach
    void stopListening() {
        ingestLog.detachAppender(logged);
    }

    private static WriterConfig config(Path store, String topic, Optional<Path> seed) {
        return WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .seed(seed)
                .build();
    }

    private static WriterApp start(WriterConfig config) throws Exception {
        return WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
    }

    private static void awaitReady(WriterApp app) {
        await("writer ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
    }

    private static double metricOf(WriterApp app, String name, String namespace) throws Exception {
        return Http.metric(Http.get(app.httpPort(), "/metrics").body(), name + "{namespace=\"" + namespace + "\"}");
    }

    /** What a writer whose clock is an hour ahead leaves in a manifest: offsets current as of an hour from now. */
    private static long stampAnHourAhead(Path manifest) throws Exception {
        Manifest m = Manifest.read(manifest);
        long ahead = System.currentTimeMillis() + HOUR;
        ManifestFiles.write(
                m.withOffsets(m.offsets(), m.contentVersion(), m.caughtUp(), m.contentDigest(), ahead),
                manifest,
                StorePermissions.DEFAULT,
                true);
        return ahead;
    }

    /** A compacted topic with a delete.retention.ms of 1 ms: any stop is longer. */
    private static void topicWithShortDeleteRetention(String topic) throws Exception {
        kafka.createTopic(topic, 1, Map.of("cleanup.policy", "compact", "delete.retention.ms", "1"));
        for (int i = 0; i < 20; i++) {
            kafka.send(topic, "k" + i, "v" + i);
        }
        kafka.flush();
    }

    private void assertRebuiltBecauseOfTheClock(WriterApp app, String namespace) throws Exception {
        assertThat(metricOf(app, "sharedlookup_writer_resumes_total", namespace))
                .as("resumed")
                .isZero();
        assertThat(metricOf(app, "sharedlookup_writer_rebuilds_total", namespace))
                .isEqualTo(1);
        assertThat(logged.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .anyMatch(m -> m.contains("building a fresh generation") && m.contains("later than this host's clock"));
    }

    @Test
    void aRestartAfterAClockAheadRebuildsInsteadOfResuming() throws Exception {
        topicWithShortDeleteRetention("ahead");
        Path store = TestKafka.tempStore();
        WriterConfig config = config(store, "ahead", Optional.empty());
        try (WriterApp app = start(config)) {
            awaitReady(app);
        }
        stampAnHourAhead(new StoreLayout(store).manifest("ahead"));
        kafka.send("ahead", "k0", null); // a delete while stopped, which compaction may remove before the restart
        kafka.flush();
        try (WriterApp app = start(config)) {
            awaitReady(app);
            assertRebuiltBecauseOfTheClock(app, "ahead");
            assertThat(TestStores.contents(store, "ahead")).isEqualTo(new TreeMap<>(kafka.latest("ahead")));
            long stamped =
                    Manifest.read(new StoreLayout(store).manifest("ahead")).updatedAtMillis();
            assertThat(stamped).as("stamped by this host's clock").isLessThanOrEqualTo(System.currentTimeMillis());
        }
    }

    @Test
    void aSeedFromAHostWhoseClockIsAheadIsRebuiltInsteadOfResumed() throws Exception {
        topicWithShortDeleteRetention("seeded-ahead");
        Path peer = TestKafka.tempStore();
        try (WriterApp app = start(config(peer, "seeded-ahead", Optional.empty()))) {
            awaitReady(app);
        }
        Path snapshot = TestKafka.tempStore().resolve("snapshot");
        Snapshots.take(peer, "seeded-ahead", snapshot, StorePermissions.DEFAULT);
        stampAnHourAhead(new StoreLayout(snapshot).manifest("seeded-ahead")); // the peer's clock was an hour ahead

        Path store = TestKafka.tempStore();
        try (WriterApp app = start(config(store, "seeded-ahead", Optional.of(snapshot)))) {
            awaitReady(app);
            assertRebuiltBecauseOfTheClock(app, "seeded-ahead");
            assertThat(TestStores.contents(store, "seeded-ahead"))
                    .isEqualTo(new TreeMap<>(kafka.latest("seeded-ahead")));
        }
    }
}
