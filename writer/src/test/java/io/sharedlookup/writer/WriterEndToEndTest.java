package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The writer in this JVM against a real KRaft broker; readers in this JVM and in a separate one. */
class WriterEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static WriterConfig config(
            Path store, List<TopicBinding> topics, Optional<String> valueField, int maxValueBytes) {
        return WriterConfig.builder(kafka.bootstrap(), store)
                .topics(topics)
                .httpPort(0)
                .valueField(valueField)
                .maxValueBytes(maxValueBytes)
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

    /** Reads the namespace from a separate JVM through reader-lib. */
    private static Map<String, String> dumpInChildJvm(Path store, String namespace) throws Exception {
        try (ChildJvm child = ChildJvm.start(
                "dump-" + namespace,
                Path.of("target", "child-logs"),
                DumpNamespace.class,
                store.toString(),
                namespace)) {
            assertThat(child.waitFor()).isZero();
            String line = child.lines().stream()
                    .filter(l -> l.startsWith("DUMP "))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no dump: " + child.lines()));
            return JSON.readValue(line.substring(5), new TypeReference<TreeMap<String, String>>() {});
        }
    }

    private static void put(Map<String, String> expected, String topic, String key, String value) {
        kafka.send(topic, key, value);
        if (value == null) {
            expected.remove(key);
        } else {
            expected.put(key, value);
        }
    }

    @Test
    void topicsEndUpAsLatestValuePerKeyAndHttpServesThem() throws Exception {
        kafka.createTopic("mixed", 3, false);
        kafka.createTopic("people", 2);
        Map<String, String> mixed = new HashMap<>();
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            String key = "k" + random.nextInt(800);
            put(mixed, "mixed", key, random.nextInt(10) == 0 ? null : "v" + i);
        }
        put(mixed, "mixed", "unicode-ключ-🔑", "значение ✓ 😀");
        put(mixed, "mixed", "", "empty key");
        put(mixed, "mixed", "empty-value", "");
        put(mixed, "mixed", "a+b/c d", "special");
        put(mixed, "mixed", "big", "small first");
        kafka.send("mixed", "big", "x".repeat(5000)); // oversize: skipped, the earlier value stays
        kafka.send("mixed", (String) null, "null key");
        kafka.send("mixed", new byte[] {(byte) 0xC3, (byte) 0x28}, "v".getBytes(StandardCharsets.UTF_8)); // bad UTF-8
        Map<String, String> people = new HashMap<>();
        kafka.send("people", "1", "{\"name\":{\"display\":\"Ada\"},\"age\":36}");
        people.put("1", "Ada");
        kafka.send("people", "2", "{\"name\":{\"display\":\"Grace\"}}");
        people.put("2", "Grace");
        kafka.send("people", "3", "not json");
        kafka.send("people", "4", "{\"name\":{}}");
        kafka.send("people", "5", "{\"name\":{\"display\":42}}");
        people.put("5", "42");
        kafka.flush();

        Path store = TestKafka.tempStore();
        List<TopicBinding> topics = List.of(new TopicBinding("mixed", "mixed"), new TopicBinding("people", "people"));
        Map<String, String> mixedBytes = new HashMap<>();
        try (WriterApp app = start(config(store, List.of(topics.get(0)), Optional.empty(), 1000))) {
            awaitReady(app);
            Contents.assertSame(dumpInChildJvm(store, "mixed"), mixed);
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_oversize_skips_total{namespace=\"mixed\"}"))
                    .isEqualTo(1);
            assertThat(Http.metric(metrics, "sharedlookup_writer_null_keys_total{namespace=\"mixed\"}"))
                    .isEqualTo(1);
            assertThat(Http.metric(metrics, "sharedlookup_writer_decode_errors_total{namespace=\"mixed\"}"))
                    .isEqualTo(1);
            assertThat(Http.metric(metrics, "sharedlookup_writer_tombstones_total{namespace=\"mixed\"}"))
                    .isPositive();
            mixedBytes.putAll(mixed);
        }
        try (WriterApp app =
                start(config(TestKafka.tempStore(), List.of(topics.get(1)), Optional.of("name.display"), 1 << 20))) {
            awaitReady(app);
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_decode_errors_total{namespace=\"people\"}"))
                    .isEqualTo(2);
            assertThat(Http.get(app.httpPort(), "/lookup/people/1").body()).isEqualTo("Ada");
            assertThat(Http.get(app.httpPort(), "/lookup/people/5").body()).isEqualTo("42");
            assertThat(Http.get(app.httpPort(), "/lookup/people/3").statusCode())
                    .isEqualTo(404);
        }

        // Clean restart: resumes from the stored offsets, reads only what is new.
        for (int i = 0; i < 10; i++) {
            put(mixed, "mixed", "new" + i, "after restart " + i);
        }
        kafka.flush();
        try (WriterApp app = start(config(store, List.of(topics.get(0)), Optional.empty(), 1000))) {
            awaitReady(app);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> TestStores.contents(store, "mixed").equals(new TreeMap<>(mixed)));
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, "sharedlookup_writer_records_total{namespace=\"mixed\"}"))
                    .isEqualTo(10);
            assertThat(Http.metric(metrics, "sharedlookup_writer_resumes_total{namespace=\"mixed\"}"))
                    .isEqualTo(1);
            assertThat(Http.metric(metrics, "sharedlookup_writer_rebuilds_total{namespace=\"mixed\"}"))
                    .isZero();
            httpEndpoints(app.httpPort());
        }
    }

    private static void httpEndpoints(int port) throws Exception {
        assertThat(Http.get(port, "/health").statusCode()).isEqualTo(200);
        HttpResponse<String> ready = Http.get(port, "/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ready.body()).get("ready").asBoolean()).isTrue();

        JsonNode ns = JSON.readTree(Http.get(port, "/namespaces").body()).get("mixed");
        assertThat(ns.get("topic").asText()).isEqualTo("mixed");
        assertThat(ns.get("state").asText()).isEqualTo("LIVE");
        assertThat(ns.get("entries").asLong()).isPositive();
        assertThat(ns.get("capacity").asLong())
                .isGreaterThanOrEqualTo(ns.get("entries").asLong());
        assertThat(ns.get("lag").size()).isEqualTo(3);
        assertThat(ns.has("generation") && ns.has("fillRatio") && ns.has("lastUpdate") && ns.has("lastError"))
                .isTrue();

        HttpResponse<String> found =
                Http.get(port, "/lookup/mixed/" + URLEncoder.encode("unicode-ключ-🔑", StandardCharsets.UTF_8));
        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(found.body()).isEqualTo("значение ✓ 😀");
        assertThat(found.headers().firstValue("content-type")).contains("text/plain; charset=utf-8");
        assertThat(Http.get(port, "/lookup/mixed/a+b%2Fc%20d").body()).isEqualTo("special");
        assertThat(Http.get(port, "/lookup/mixed/empty-value").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/lookup/mixed/no-such-key").statusCode()).isEqualTo(404);
        assertThat(Http.get(port, "/lookup/nothere/x").statusCode()).isEqualTo(404);
        assertThat(Http.get(port, "/lookup/bad%24name/x").statusCode()).isEqualTo(400);
        assertThat(Http.get(port, "/lookup/mixed").statusCode()).isEqualTo(400);
        assertThat(Http.get(port, "/lookup/mixed/%C3").statusCode()).isEqualTo(400);
        assertThat(Http.get(port, "/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> post = Http.send(port, "POST", "/lookup/mixed/k1");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).contains("GET, HEAD");
        assertThat(Http.send(port, "DELETE", "/health").statusCode()).isEqualTo(405);

        HttpResponse<String> metrics = Http.get(port, "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
        for (String family : List.of(
                "sharedlookup_writer_records_total",
                "sharedlookup_writer_tombstones_total",
                "sharedlookup_writer_decode_errors_total",
                "sharedlookup_writer_oversize_skips_total",
                "sharedlookup_writer_lag_records",
                "sharedlookup_writer_entries",
                "sharedlookup_writer_capacity_entries",
                "sharedlookup_writer_generation",
                "sharedlookup_writer_rebuilds_total",
                "sharedlookup_http_requests_total",
                "sharedlookup_http_request_duration_seconds")) {
            assertThat(metrics.body()).contains("# TYPE " + family + " ");
        }
        assertThat(metrics.body()).contains("sharedlookup_writer_lag_records{namespace=\"mixed\",partition=\"0\"}");
        // The content digest as of the published offsets, in /namespaces (all 64 bits) and the metrics (low 48).
        String digest = ns.get("digest").asText();
        assertThat(digest).matches("[0-9a-f]{16}");
        assertThat(ns.get("offsets").size()).isEqualTo(3);
        assertThat((long) Http.metric(metrics.body(), "sharedlookup_writer_content_digest{namespace=\"mixed\"}"))
                .isEqualTo(Long.parseUnsignedLong(digest, 16) & WriterMetrics.DIGEST_GAUGE_MASK);
    }

    /** --reverse-index: reverse lookups through reader-lib follow puts, updates and tombstones, from the index. */
    @Test
    void reverseIndexFollowsTheTopic() throws Exception {
        kafka.createTopic("teams", 2);
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            put(expected, "teams", "member-" + i, "team-" + (i % 40));
        }
        put(expected, "teams", "member-7", "team-moved");
        put(expected, "teams", "member-8", null);
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("teams", "teams")))
                .httpPort(0)
                .maxValueBytes(1000)
                .reverseIndex(true)
                .build();
        try (WriterApp app = start(config)) {
            awaitReady(app);
            try (SharedLookupStore s = SharedLookupStore.open(store)) {
                var teams = s.lookup("teams");
                assertThat(teams.hasReverseIndex()).isTrue();
                for (String team : new java.util.TreeSet<>(expected.values())) {
                    assertThat(teams.keysOf(team))
                            .as(team)
                            .containsExactlyInAnyOrderElementsOf(expected.entrySet().stream()
                                    .filter(e -> e.getValue().equals(team))
                                    .map(Map.Entry::getKey)
                                    .toList());
                }
                assertThat(teams.keysOf("team-7")).doesNotContain("member-7", "member-8");
            }
        }
    }

    @Test
    void storeDirectoriesAndFilesGetTheConfiguredModes() throws Exception {
        kafka.createTopic("modes", 1);
        kafka.send("modes", "1", "one");
        kafka.flush();
        Path store = TestKafka.tempStore().resolve("created/by/the/writer");
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("modes", "modes")))
                .httpPort(0)
                .permissions(io.sharedlookup.writer.store.StorePermissions.parse("0660", "0770"))
                .build();
        try (WriterApp app = start(config)) {
            awaitReady(app);
            assertThat(mode(store)).as("the store root it created").isEqualTo("rwxrwx---");
            assertThat(mode(store.resolve("modes"))).isEqualTo("rwxrwx---");
            List<Path> files;
            try (var list = java.nio.file.Files.list(store.resolve("modes"))) {
                files = list.filter(f -> !f.getFileName().toString().startsWith("."))
                        .toList();
            }
            assertThat(files)
                    .extracting(f -> f.getFileName().toString())
                    .anySatisfy(n -> assertThat(n).endsWith(".cmap"))
                    .contains("manifest.properties");
            for (Path f : files) {
                if (java.nio.file.Files.isRegularFile(f)) {
                    assertThat(mode(f)).as(f.toString()).isEqualTo("rw-rw----");
                }
            }
        }
    }

    private static String mode(Path p) throws java.io.IOException {
        return java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(p));
    }

    @Test
    void aGroupIdMakesTheWriterVisibleInBrokerToolingWithItsPositions() throws Exception {
        kafka.createTopic("grouped", 2);
        for (int i = 0; i < 50; i++) {
            kafka.send("grouped", "k" + i, "v" + i);
        }
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding("grouped", "grouped")))
                .kafkaProperties(Map.of("group.id", "lookup-writer"))
                .httpPort(0)
                .build();
        try (WriterApp app = start(config);
                org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                        Map.<String, Object>of("bootstrap.servers", kafka.bootstrap()))) {
            awaitReady(app);
            // What kafka-consumer-groups --describe reads: the group's committed offsets, here the end offsets.
            await("positions committed to the group")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        var committed = admin.listConsumerGroupOffsets("lookup-writer")
                                .partitionsToOffsetAndMetadata()
                                .get(10, java.util.concurrent.TimeUnit.SECONDS);
                        long total = committed.values().stream()
                                .mapToLong(o -> o.offset())
                                .sum();
                        return committed.size() == 2 && total == 50;
                    });
        }
    }

    /** Only committed records: an aborted transaction's records never reach the store, an open one's not yet. */
    @Test
    void anAbortedTransactionIsNotApplied() throws Exception {
        kafka.createTopic("tx", 1);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "writer-end-to-end-tx");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx", "k", "committed"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx", "k", "aborted"));
            producer.send(new ProducerRecord<>("tx", "ghost", "aborted"));
            producer.flush();
            producer.abortTransaction();
        }
        Path store = TestKafka.tempStore();
        try (WriterApp app = start(config(store, List.of(new TopicBinding("tx", "tx")), Optional.empty(), 1 << 20))) {
            awaitReady(app);
            assertThat(TestStores.contents(store, "tx")).isEqualTo(Map.of("k", "committed"));
        }
    }

    /**
     * A topic deleted and recreated while the writer is stopped, holding more records than the stored offsets by the
     * restart: the offsets alone look valid, the topic id says it is another topic.
     */
    @Test
    void aTopicRecreatedWithMoreRecordsWhileStopped_isRebuiltNotResumed() throws Exception {
        kafka.createTopic("recreated", 1);
        for (int i = 0; i < 5; i++) {
            kafka.send("recreated", 0, "old" + i, "old");
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config =
                config(store, List.of(new TopicBinding("recreated", "recreated")), Optional.empty(), 1 << 20);
        try (WriterApp app = start(config)) {
            awaitReady(app);
        }
        kafka.deleteTopic("recreated");
        kafka.createTopic("recreated", 1);
        for (int i = 0; i < 10; i++) {
            kafka.send("recreated", 0, "new" + i, "new");
        }
        kafka.flush();
        try (WriterApp app = start(config)) {
            awaitReady(app);
            assertThat(TestStores.contents(store, "recreated")).isEqualTo(new TreeMap<>(kafka.latest("recreated")));
        }
    }

    /**
     * A snapshot taken with other settings than the seeding writer's is refused before anything of it is published,
     * by the same rule a restart uses to rebuild, and the namespace is built from the topic.
     */
    @Test
    void aSeedTakenWithAnotherValueFieldIsRefusedAndTheNamespaceBuiltFromTheTopic() throws Exception {
        kafka.createTopic("seeded", 1);
        kafka.send("seeded", 0, "1", "{\"name\":\"Ada\"}");
        kafka.flush();
        Path peer = TestKafka.tempStore();
        try (WriterApp app =
                start(config(peer, List.of(new TopicBinding("seeded", "seeded")), Optional.empty(), 1 << 20))) {
            awaitReady(app);
        }
        Path snapshot = TestKafka.tempStore().resolve("snapshot");
        Snapshots.take(peer, "seeded", snapshot, StorePermissions.DEFAULT);

        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(WriterApp.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        Path store = TestKafka.tempStore();
        WriterConfig withField = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("seeded", "seeded")))
                .httpPort(0)
                .valueField(Optional.of("name"))
                .maxValueBytes(1 << 20)
                .seed(Optional.of(snapshot))
                .build();
        try (WriterApp app = start(withField)) {
            assertThat(log.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(m -> m.contains("cannot seed from") && m.contains("value.field"));
            awaitReady(app);
            assertThat(TestStores.contents(store, "seeded")).isEqualTo(Map.of("1", "Ada"));
        } finally {
            logger.detachAppender(log);
        }
    }

    @Test
    void missingTopicIsAConfigurationError() throws Exception {
        assertThatThrownBy(() -> start(config(
                        TestKafka.tempStore(), List.of(new TopicBinding("absent", "absent")), Optional.empty(), 1000)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Topic 'absent' does not exist");
    }

    @Test
    void growsFromATinyStartWhileReadersRead() throws Exception {
        kafka.createTopic("grow", 2);
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 500; i++) {
            put(expected, "grow", "key-" + i, "value-" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        try (WriterApp app = start(config(store, List.of(new TopicBinding("grow", "grow")), Optional.empty(), 1000));
                // The reader shares this JVM (and 2 cores) with broker, producer and writer: a GC pause while the
                // writer holds a segment's write lock can outlast the 20 ms default bound, which is not what this
                // tests.
                SharedLookupStore readerStore = SharedLookupStore.builder(store)
                        .lockTimeout(Duration.ofSeconds(2))
                        .open()) {
            awaitReady(app);
            long firstCapacity = app.statuses().get("grow").capacity();
            Lookup lookup = readerStore.lookup("grow");
            AtomicBoolean reading = new AtomicBoolean(true);
            List<Throwable> readerErrors = new CopyOnWriteArrayList<>();
            AtomicLong reads = new AtomicLong();
            Thread reader = new Thread(() -> {
                Random r = new Random();
                StringBuilder out = new StringBuilder();
                while (reading.get()) {
                    try {
                        int i = r.nextInt(500);
                        if (lookup.getInto("key-" + i, out)
                                && !out.toString().startsWith("value-")
                                && !out.toString().startsWith("again-")) {
                            readerErrors.add(new AssertionError("odd value " + out));
                        }
                        reads.incrementAndGet();
                    } catch (Throwable t) {
                        readerErrors.add(t);
                    }
                }
            });
            reader.setDaemon(true); // never outlives a failed await in the shared test JVM
            reader.start();
            try {
                for (int i = 0; i < 10_000; i++) {
                    put(expected, "grow", "key-" + (i < 2000 ? i : 500 + i), "value-" + i);
                    if (i % 7 == 0) {
                        // Deletes and rewrites of keys already copied or not yet copied while generations grow.
                        put(expected, "grow", "key-" + (i / 2), i % 14 == 0 ? null : "again-" + i);
                    }
                }
                kafka.flush();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> lookup.size() == expected.size()
                                && TestStores.contents(store, "grow").equals(new TreeMap<>(expected)));
                // The writer's status snapshot (capacity) is refreshed at its checkpoints, every 250 ms, so on a
                // fast run it can still show the first generation when the data is already complete: await it too.
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> {
                            assertThat(app.statuses().get("grow").capacity()).isGreaterThan(firstCapacity);
                            String metrics =
                                    Http.get(app.httpPort(), "/metrics").body();
                            assertThat(Http.metric(metrics, "sharedlookup_writer_growths_total{namespace=\"grow\"}"))
                                    .isGreaterThanOrEqualTo(2);
                        });
            } finally {
                reading.set(false);
                reader.join(30_000);
            }
            assertThat(readerErrors).isEmpty();
            assertThat(reads.get()).isPositive();
            Contents.assertSame(TestStores.contents(store, "grow"), expected);
            assertThat(lookup.size()).isEqualTo(expected.size());
        }
    }

    private static double metricOf(WriterApp app, String name, String namespace) throws Exception {
        return Http.metric(Http.get(app.httpPort(), "/metrics").body(), name + "{namespace=\"" + namespace + "\"}");
    }

    @Test
    void restartRebuildsWhenStoredOffsetsAreBelowTheLogStartOrOlderThanDeleteRetention() throws Exception {
        kafka.createTopic("trunc", 1, false);
        kafka.createTopic("retention", 1, Map.of("cleanup.policy", "compact", "delete.retention.ms", "1"));
        for (int i = 0; i < 100; i++) {
            kafka.send("trunc", "k" + i, "v" + i);
            kafka.send("retention", "k" + i, "v" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        List<TopicBinding> topics =
                List.of(new TopicBinding("trunc", "trunc"), new TopicBinding("retention", "retention"));
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(topics)
                .httpPort(0)
                .build();
        try (WriterApp app = start(config)) {
            awaitReady(app);
        }
        for (int i = 100; i < 200; i++) {
            kafka.send("trunc", "k" + i, "v" + i);
        }
        kafka.flush();
        kafka.deleteRecordsBefore("trunc", 150);
        try (WriterApp app = start(config)) {
            awaitReady(app);
            assertThat(metricOf(app, "sharedlookup_writer_rebuilds_total", "trunc"))
                    .isEqualTo(1);
            assertThat(metricOf(app, "sharedlookup_writer_resumes_total", "trunc"))
                    .isZero();
            assertThat(metricOf(app, "sharedlookup_writer_rebuilds_total", "retention"))
                    .isEqualTo(1);
            assertThat(metricOf(app, "sharedlookup_writer_resumes_total", "retention"))
                    .isZero();
            assertThat(TestStores.contents(store, "trunc"))
                    .hasSize(50)
                    .containsEntry("k199", "v199")
                    .doesNotContainKey("k149");
            assertThat(TestStores.contents(store, "retention")).hasSize(100);
        }
    }
}
