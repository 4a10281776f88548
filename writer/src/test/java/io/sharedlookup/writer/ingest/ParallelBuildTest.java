package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.ParallelFill;
import io.sharedlookup.writer.store.GenerationUnusableException;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A first build filled by two applier threads ({@link ParallelApplier}), from a real broker, interrupted in its middle
 * by a stop, a rebuild and a stall: each time the generation finally published holds exactly the topic's latest value
 * per key (its digest too: nothing was put after the publish) at the topic's end offsets. Every key is updated ten
 * times in a row, so a key's records applied by two threads, or a record counted before it is put, show as a value
 * that is not the latest.
 */
class ParallelBuildTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int KEYS = 1_500;
    private static final int UPDATES = 10;
    /** Records read before the build is held: 1,000 sample it, the rest go through the appliers. */
    private static final int HOLD_AT = 4_000;

    private final WriterMetrics metrics = new WriterMetrics();
    private Ingestor ingestor;

    /**
     * A real consumer whose polls return nothing once {@code records} records were read, until released: the writer
     * stays in the middle of its build, polling as on a quiet topic.
     */
    static final class HeldConsumer extends KafkaConsumer<byte[], byte[]> {
        private final AtomicInteger left;
        volatile boolean released;

        HeldConsumer(Properties settings, int records) {
            super(settings);
            left = new AtomicInteger(records);
        }

        boolean holding() {
            return left.get() <= 0 && !released;
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            if (holding()) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return ConsumerRecords.empty();
            }
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            left.addAndGet(-records.count());
            return records;
        }
    }

    @AfterEach
    void stop() throws Exception {
        ParallelFill.faultForTests = null;
        if (ingestor != null) {
            ingestor.stop(Duration.ofSeconds(10));
        }
    }

    @Test
    void aStopInTheMiddleLeavesNothingPublishedAndTheNextStartBuildsItAll() throws Exception {
        String topic = "stopped";
        produce(topic, 2, 0, KEYS, UPDATES, "");
        Path store = TestKafka.tempStore();
        HeldConsumer held = start(topic, store, HOLD_AT);
        awaitHeldInTheMiddle(held, topic);
        ingestor.stop(Duration.ofSeconds(30));
        ingestor = null;
        // A stopped writer keeps no applier threads (they would idle for their 30 s keep-alive otherwise).
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                        .filteredOn(t -> t.getName().startsWith("shared-lookup-applier-"))
                        .isEmpty());
        Path dir = new StoreLayout(store).namespaceDir(topic);
        assertThat(Files.exists(new StoreLayout(store).manifest(topic)))
                .as("nothing published")
                .isFalse();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cmap")))
                    .as("the unpublished generation is discarded")
                    .isEmpty();
        }
        start(topic, store, Integer.MAX_VALUE);
        awaitExactlyTheTopic(topic, store);
    }

    @Test
    void aRebuildInTheMiddlePublishesTheTopicAsItIsNow() throws Exception {
        String topic = "truncated";
        kafka.createTopic(topic, 1, false); // a compacted topic takes no deleteRecords
        produce(topic, 1, 0, KEYS, UPDATES, "");
        Path store = TestKafka.tempStore();
        HeldConsumer held = start(topic, store, HOLD_AT);
        awaitHeldInTheMiddle(held, topic);
        // As retention would: the records the writer is about to read are gone, and it reads the topic again.
        kafka.deleteRecordsBefore(topic, (long) KEYS * UPDATES / 2);
        held.released = true;
        awaitExactlyTheTopic(topic, store);
        assertThat(metrics.rebuilds.labelValues(topic).get())
                .as("the first build and the one after truncation")
                .isEqualTo(2);
    }

    @Test
    void aStallInTheMiddleLosesNothing() throws Exception {
        String topic = "stalled";
        produce(topic, 2, 0, KEYS, UPDATES, "");
        // Then twice as many keys with values ten times as long: the generation, sized from short ones, needs extra
        // tiers for them.
        produce(topic, 2, KEYS, 2 * KEYS, 1, "-".repeat(250));
        Path store = TestKafka.tempStore();
        HeldConsumer held = start(topic, store, HOLD_AT);
        awaitHeldInTheMiddle(held, topic);
        Path generation;
        try (Stream<Path> files = Files.list(new StoreLayout(store).namespaceDir(topic))) {
            generation = files.filter(p -> p.getFileName().toString().endsWith(".cmap"))
                    .findFirst()
                    .orElseThrow();
        }
        // No file may grow (as on a full disk): the next extra tier bulk is refused and the namespace stalls.
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(Files.size(generation))) {
            held.released = true;
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(metrics.stalls.labelValues(topic).get()).isGreaterThanOrEqualTo(1);
                assertThat(ingestor.statuses().get(topic).state()).isEqualTo(NamespaceStatus.State.STALLED);
            });
        }
        awaitExactlyTheTopic(topic, store);
    }

    /**
     * An applier's put finds the generation unusable (as after a failed cut-back or a half-done relocation): nothing
     * puts into it again, not even the ingest thread (which used to apply the record again, into the damaged file), and
     * the namespace is rebuilt from its topic, as when that happens on the ingest thread.
     */
    @Test
    void aGenerationAnApplierFindsUnusableIsRebuiltNotWrittenAgain() throws Exception {
        String topic = "unusable";
        produce(topic, 2, 0, KEYS, UPDATES, "");
        AtomicInteger faults = new AtomicInteger();
        ParallelFill.faultForTests = (key, value) -> {
            if (faults.compareAndSet(0, 1)) {
                throw new GenerationUnusableException("test: generation unusable at key " + key, null);
            }
        };
        Path store = TestKafka.tempStore();
        start(topic, store, Integer.MAX_VALUE);
        awaitExactlyTheTopic(topic, store);
        assertThat(faults.get()).as("an applier's put failed").isEqualTo(1);
        assertThat(metrics.rebuilds.labelValues(topic).get())
                .as("the first build and the one after the fault")
                .isEqualTo(2);
    }

    /**
     * {@code keys} keys from {@code firstKey}, each set {@code updates} times in a row (suffixed {@code tail}), every
     * seventh finally removed when updated more than once, spread over {@code partitions} partitions by key.
     */
    private static void produce(String topic, int partitions, int firstKey, int keys, int updates, String tail)
            throws Exception {
        boolean exists;
        try (var admin = kafka.admin()) {
            exists = admin.listTopics().names().get().contains(topic);
        }
        if (!exists) {
            kafka.createTopic(topic, partitions);
        }
        for (int k = firstKey; k < firstKey + keys; k++) {
            String key = "key-" + k;
            for (int u = 1; u <= updates; u++) {
                boolean remove = u == updates && updates > 1 && k % 7 == 0;
                kafka.send(topic, k % partitions, key, remove ? null : key + "=" + u + tail);
            }
            if (k % 50 == 0) {
                kafka.flush(); // small batches: a consumer then fetches a few hundred records ahead, not the topic
            }
        }
        kafka.flush();
    }

    private HeldConsumer start(String topic, Path store, int batchesBeforeHold) throws Exception {
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .applyThreads(2)
                // Small fetches: a held consumer has not fetched far beyond what it handed out (else a truncation
                // would come after the records it is about to read, already in its buffer).
                .kafkaProperties(Map.of("max.partition.fetch.bytes", "16384"))
                .build();
        NamespaceDirectory writer = NamespaceDirectory.open(new StoreLayout(store), topic, StorePermissions.DEFAULT);
        NamespaceIngest ingest = new NamespaceIngest(new TopicBinding(topic, topic), writer, metrics, Map.of());
        HeldConsumer consumer = new HeldConsumer(ConsumerSettings.of(config), batchesBeforeHold);
        ingestor = new Ingestor(config, List.of(ingest), metrics, () -> consumer);
        ingestor.start();
        return consumer;
    }

    /** Held with a generation being filled, some of it by the appliers. */
    private void awaitHeldInTheMiddle(HeldConsumer held, String topic) {
        await().atMost(WAIT).until(held::holding);
        await().atMost(WAIT).untilAsserted(() -> {
            NamespaceStatus status = ingestor.statuses().get(topic);
            assertThat(status.state()).isEqualTo(NamespaceStatus.State.REBUILDING);
            assertThat(status.entries()).isPositive().isLessThan(KEYS);
        });
        assertThat(Thread.getAllStackTraces().keySet())
                .as("an applier thread ran")
                .anyMatch(t -> t.getName().startsWith("shared-lookup-applier-"));
    }

    /** Published: the topic's latest value per key, its digest, and its end offsets. */
    private void awaitExactlyTheTopic(String topic, Path store) throws Exception {
        await().atMost(WAIT).until(() -> ingestor.statuses().get(topic).ready());
        Map<String, String> expected = new TreeMap<>(kafka.latest(topic));
        assertThat(TestStores.contents(store, topic)).isEqualTo(expected);
        Manifest manifest = Manifest.read(new StoreLayout(store).manifest(topic));
        long digest = 0;
        for (Map.Entry<String, String> e : expected.entrySet()) {
            digest += ContentDigest.of(e.getKey(), e.getValue());
        }
        assertThat(manifest.contentDigest())
                .as("the digest published is the content's")
                .isEqualTo(digest);
        Map<Integer, Long> end = new TreeMap<>();
        try (var admin = kafka.admin()) {
            int partitions = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .size();
            for (int p = 0; p < partitions; p++) {
                var tp = new TopicPartition(topic, p);
                end.put(
                        p,
                        admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                                .all()
                                .get()
                                .get(tp)
                                .offset());
            }
        }
        assertThat(manifest.offsets())
                .as("the end offsets, each record applied")
                .isEqualTo(end);
    }
}
