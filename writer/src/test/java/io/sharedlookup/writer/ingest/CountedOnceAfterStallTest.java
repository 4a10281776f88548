package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.writer.Http;
import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.SkippedRecords;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 42 item 2 follow-up: a record the writer reads again after a stall (its topic paused, the consumer sent back
 * to the first record not applied, every retry reading it again) is counted once. A real broker holds a topic whose
 * second half has longer values than the first, with tombstones, null keys, oversize values and undecodable keys
 * among them; the writer builds its first generation, is held in the middle, and the generation may then not grow (a
 * file size limit, as a full disk), so the namespace stalls and is retried at least once before room comes back.
 * Once published, each counter, read from the Prometheus text, equals the number of such records in the topic, and the
 * skipped-records list names each bad offset once: with one applier, with two (whose pass hands records back to the
 * ingest thread), and with one topic feeding two namespaces where one skips what the other stalls on.
 */
class CountedOnceAfterStallTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int KEYS = 1_500;
    private static final int UPDATES = 4;
    /** Records read before the build is held: 1,000 sample it, the rest are applied to the generation. */
    private static final int HOLD_AT = 3_000;

    private static final int MAX_VALUE_BYTES = 1_024;

    private final WriterMetrics metrics = new WriterMetrics();
    private Ingestor ingestor;

    /** What was produced: the number of records of each kind, and where the bad ones are. */
    private static final class Topic {
        long records;
        long tombstones;
        long nullKeys;
        long oversize;
        long undecodable;
        /** Records of the second half with no field {@code a} (every good one): bad for a namespace of field a. */
        long withoutFieldA;

        final List<Future<RecordMetadata>> sent = new ArrayList<>();
        final List<Future<RecordMetadata>> bad = new ArrayList<>();
        final List<Future<RecordMetadata>> badForFieldA = new ArrayList<>();

        /** The counts a namespace of whole values should show; {@code moreUndecodable} for one of field a. */
        Counts counts(long moreUndecodable) {
            return new Counts(records, tombstones, nullKeys, oversize, undecodable + moreUndecodable);
        }

        static Set<String> offsets(List<Future<RecordMetadata>> sent) throws Exception {
            Set<String> out = new HashSet<>();
            for (Future<RecordMetadata> f : sent) {
                out.add(f.get().partition() + "/" + f.get().offset());
            }
            return out;
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (ingestor != null) {
            ingestor.stop(Duration.ofSeconds(10));
        }
    }

    /** One applier (the ingest thread alone) and two (a parallel pass that hands records back at the stall). */
    @ParameterizedTest(name = "{0} applier(s)")
    @ValueSource(ints = {1, 2})
    void appliers(int threads) throws Exception {
        String topic = "recount-" + threads;
        Topic produced = produce(topic, false);
        Path store = TestKafka.tempStore();
        ParallelBuildTest.HeldConsumer held = start(store, threads, new TopicBinding(topic, topic));
        stallAndRecover(held, store, topic);
        assertCountedOnce(topic, produced);
    }

    /**
     * Namespace {@code fielda} stores field {@code a}, which the second half's documents lack: it skips each of them
     * as undecodable before {@code whole} (the whole value) stalls on one of them, and the record read again after the
     * stall must not be skipped (and counted) again by the namespace that already dealt with it.
     */
    @Test
    void aNamespaceThatSkippedWhatAnotherOfItsTopicStalledOn() throws Exception {
        String topic = "recount-shared";
        Topic produced = produce(topic, true);
        Path store = TestKafka.tempStore();
        ParallelBuildTest.HeldConsumer held =
                start(store, 1, new TopicBinding(topic, "fielda", Optional.of("a")), new TopicBinding(topic, "whole"));
        stallAndRecover(held, store, "whole");

        Counts whole = produced.counts(0);
        Counts fieldA = produced.counts(produced.withoutFieldA);
        assertThat(Map.of("fielda", counts("fielda"), "whole", counts("whole")))
                .as("counters")
                .isEqualTo(Map.of("fielda", fieldA, "whole", whole));
        assertSkippedOnce("whole", produced.bad);
        List<String> skipped = skippedOffsets("fielda");
        Set<String> expected = Topic.offsets(produced.bad);
        expected.addAll(Topic.offsets(produced.badForFieldA));
        assertThat(skipped).hasSize(SkippedRecords.KEPT); // the last ones of more than that
        assertThat(skipped).doesNotHaveDuplicates().allMatch(expected::contains);
    }

    /**
     * 2 partitions. First half: {@code KEYS} keys each set {@code UPDATES} times with short values (every seventh
     * finally removed). Second half: twice as many keys with values ten times as long, among them tombstones of
     * first-half keys, null keys, values over {@link #MAX_VALUE_BYTES} and keys that are not UTF-8. {@code json}:
     * values are documents, with field {@code a} in the first half only.
     */
    private static Topic produce(String topic, boolean json) throws Exception {
        kafka.createTopic(topic, 2, false); // not compacted: a compacted topic refuses null keys
        Topic t = new Topic();
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("linger.ms", "0");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int k = 0; k < KEYS; k++) {
                for (int u = 1; u <= UPDATES; u++) {
                    boolean remove = u == UPDATES && k % 7 == 0;
                    String value = "key-" + k + "=" + u;
                    send(
                            producer,
                            t,
                            topic,
                            k % 2,
                            "key-" + k,
                            remove ? null : json ? "{\"a\":\"" + value + "\"}" : value);
                    t.tombstones += remove ? 1 : 0;
                }
                if (k % 50 == 0) {
                    producer.flush(); // small batches: the consumer fetches a few hundred records ahead, not the topic
                }
            }
            String tail = "-".repeat(250);
            for (int k = KEYS; k < 3 * KEYS; k++) {
                int partition = k % 2;
                String value = "key-" + k + "=" + tail;
                Future<RecordMetadata> good =
                        send(producer, t, topic, partition, "key-" + k, json ? "{\"b\":\"" + value + "\"}" : value);
                if (json) {
                    t.withoutFieldA++;
                    t.badForFieldA.add(good);
                }
                if (k % 10 == 0) {
                    send(producer, t, topic, partition, "key-" + (k % KEYS), null);
                    t.tombstones++;
                }
                if (k % 97 == 0) {
                    t.bad.add(send(producer, t, topic, partition, (byte[]) null, bytes(value)));
                    t.nullKeys++;
                }
                if (k % 131 == 0) {
                    t.bad.add(send(
                            producer, t, topic, partition, bytes("big-" + k), bytes("x".repeat(2 * MAX_VALUE_BYTES))));
                    t.oversize++;
                }
                if (k % 151 == 0) {
                    byte[] key = bytes("bad-" + k + "-?");
                    key[key.length - 1] = (byte) 0xC3; // a lead byte with no continuation: not UTF-8
                    t.bad.add(send(producer, t, topic, partition, key, bytes(value)));
                    t.undecodable++;
                }
                if (k % 50 == 0) {
                    producer.flush();
                }
            }
            producer.flush();
        }
        for (Future<RecordMetadata> f : t.sent) {
            f.get(); // every record is in the topic
        }
        return t;
    }

    private static Future<RecordMetadata> send(
            KafkaProducer<byte[], byte[]> producer, Topic t, String topic, int partition, String key, String value) {
        return send(producer, t, topic, partition, bytes(key), bytes(value));
    }

    private static Future<RecordMetadata> send(
            KafkaProducer<byte[], byte[]> producer, Topic t, String topic, int partition, byte[] key, byte[] value) {
        t.records++;
        Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, partition, key, value));
        t.sent.add(f);
        return f;
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private ParallelBuildTest.HeldConsumer start(Path store, int applyThreads, TopicBinding... bindings)
            throws Exception {
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(bindings))
                .httpPort(0)
                .applyThreads(applyThreads)
                .maxValueBytes(MAX_VALUE_BYTES)
                .kafkaProperties(Map.of("max.partition.fetch.bytes", "16384"))
                .build();
        List<NamespaceIngest> namespaces = new ArrayList<>();
        for (TopicBinding b : bindings) {
            NamespaceDirectory writer =
                    NamespaceDirectory.open(new StoreLayout(store), b.namespace(), StorePermissions.DEFAULT);
            namespaces.add(new NamespaceIngest(b, writer, metrics, Map.of()));
        }
        ParallelBuildTest.HeldConsumer consumer =
                new ParallelBuildTest.HeldConsumer(ConsumerSettings.of(config), HOLD_AT);
        ingestor = new Ingestor(config, namespaces, metrics, () -> consumer);
        ingestor.start();
        return consumer;
    }

    /**
     * Held with the generation of {@code namespace} created; released with no file allowed to grow, so the longer
     * values find no room and the topic stalls, and is read again at least once (a second stall); then room again,
     * and the namespace is published.
     */
    private void stallAndRecover(ParallelBuildTest.HeldConsumer held, Path store, String namespace) throws Exception {
        await().atMost(WAIT).until(held::holding);
        await().atMost(WAIT).untilAsserted(() -> {
            NamespaceStatus status = ingestor.statuses().get(namespace);
            assertThat(status.state()).isEqualTo(NamespaceStatus.State.REBUILDING);
            assertThat(status.entries()).isPositive();
        });
        Path generation;
        try (Stream<Path> files = Files.list(new StoreLayout(store).namespaceDir(namespace))) {
            generation = files.filter(p -> p.getFileName().toString().endsWith(".cmap"))
                    .findFirst()
                    .orElseThrow();
        }
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(Files.size(generation))) {
            held.released = true;
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    counter(new String(metrics.scrape(), StandardCharsets.UTF_8), "stalls", namespace))
                            .as("stalled, and stalled again when read again")
                            .isGreaterThanOrEqualTo(2));
        }
        await().atMost(WAIT).until(() -> ingestor.statuses().get(namespace).ready());
    }

    /** What a namespace's counters say, from the Prometheus text. */
    record Counts(long recordsRead, long tombstones, long nullKeys, long oversize, long decodeErrors) {}

    private Counts counts(String namespace) {
        String text = new String(metrics.scrape(), StandardCharsets.UTF_8);
        return new Counts(
                counter(text, "records", namespace),
                counter(text, "tombstones", namespace),
                counter(text, "null_keys", namespace),
                counter(text, "oversize_skips", namespace),
                counter(text, "decode_errors", namespace));
    }

    /** Each counter of {@code namespace} (whole values) is the number of such records; each bad offset listed once. */
    private void assertCountedOnce(String namespace, Topic produced) throws Exception {
        assertThat(counts(namespace)).as("counters").isEqualTo(produced.counts(0));
        assertSkippedOnce(namespace, produced.bad);
    }

    private void assertSkippedOnce(String namespace, List<Future<RecordMetadata>> bad) throws Exception {
        assertThat(skippedOffsets(namespace))
                .as("each skipped offset once")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(Topic.offsets(bad));
    }

    /** The namespace's skipped-records list, as /namespaces shows it: partition/offset of each. */
    private List<String> skippedOffsets(String namespace) {
        return ingestor.statuses().get(namespace).skippedRecords().stream()
                .map(s -> s.partition() + "/" + s.offset())
                .toList();
    }

    private static long counter(String metricsText, String name, String namespace) {
        return (long)
                Http.metric(metricsText, "sharedlookup_writer_" + name + "_total{namespace=\"" + namespace + "\"}");
    }
}
