package io.sharedlookup.writer;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real KRaft broker for one test class, plus a producer. As a JUnit extension
 * ({@code @RegisterExtension static final TestKafka kafka = new TestKafka();}) it starts before the class's tests and
 * stops after them, deleting the stores made with {@link #tempStore()}; {@link #started()} gives one to close yourself.
 */
final class TestKafka implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
    EmbeddedKafka broker;
    private KafkaProducer<byte[], byte[]> producer;
    private Path brokerDir;

    /** A broker started now, for a try-with-resources block. */
    static TestKafka started() throws Exception {
        TestKafka kafka = new TestKafka();
        kafka.start();
        return kafka;
    }

    private void start() throws Exception {
        brokerDir = Files.createTempDirectory("writer-test-kafka-");
        broker = EmbeddedKafka.start(brokerDir);
        producer = newProducer();
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /**
     * A fresh producer: after a broker restart the old one's idempotence state makes it crawl through
     * OUT_OF_ORDER_SEQUENCE retries on newly created topics.
     */
    void resetProducer() {
        producer.close();
        producer = newProducer();
    }

    private KafkaProducer<byte[], byte[]> newProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        return new KafkaProducer<>(p);
    }

    String bootstrap() {
        return broker.bootstrapServers();
    }

    void createTopic(String name, int partitions) throws Exception {
        createTopic(name, partitions, true);
    }

    /** Compacted topics reject null keys (the whole batch), so topics that test null keys use delete. */
    void createTopic(String name, int partitions, boolean compacted) throws Exception {
        createTopic(name, partitions, Map.of("cleanup.policy", compacted ? "compact" : "delete"));
    }

    void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty())
                    .configs(configs))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Moves the log start offset of partition 0 of {@code topic} to {@code offset}, as retention would. */
    void deleteRecordsBefore(String topic, long offset) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.deleteRecords(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                    org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(offset))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Deletes {@code topic} and waits until the broker no longer lists it, so it can be created anew. */
    void deleteTopic(String topic) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await("topic " + topic + " deleted").atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(100))
                    .until(() -> !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic));
        }
    }

    /** Sends raw bytes; null value = tombstone. */
    void send(String topic, byte[] key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key, value));
    }

    void send(String topic, String key, String value) {
        send(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends to an explicit partition. */
    void send(String topic, int partition, String key, String value) {
        producer.send(new ProducerRecord<>(topic, partition, key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
    }

    /** Raises the partition count of {@code topic} to {@code total}, as an operator would with kafka-topics --alter. */
    void increasePartitions(String topic, int total) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createPartitions(Map.of(topic, org.apache.kafka.clients.admin.NewPartitions.increaseTo(total)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    void flush() {
        producer.flush();
    }

    /** Fails with the differing keys only (whole maps are too long to read). */
    static void assertSameContent(Map<String, String> actual, Map<String, String> expected) {
        java.util.List<String> diffs = new java.util.ArrayList<>();
        java.util.Set<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            if (!java.util.Objects.equals(actual.get(k), expected.get(k))) {
                diffs.add("'" + k + "': expected " + expected.get(k) + " but was " + actual.get(k));
            }
        }
        if (!diffs.isEmpty()) {
            throw new AssertionError(diffs.size() + " of " + keys.size() + " keys differ, e.g. "
                    + diffs.subList(0, Math.min(10, diffs.size())));
        }
    }

    static boolean sameContent(Map<String, String> actual, Map<String, String> expected) {
        return actual.equals(expected);
    }

    private static final List<Path> TEMP_DIRS = new java.util.concurrent.CopyOnWriteArrayList<>();

    static Path tempStore() throws Exception {
        Path dir = Files.createTempDirectory("writer-test-store-");
        TEMP_DIRS.add(dir);
        return dir;
    }

    private static void deleteRecursively(Path dir) {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // best effort: temp files
        }
    }

    @Override
    public void close() {
        if (broker == null) {
            return; // never started
        }
        producer.close();
        broker.close();
        deleteRecursively(brokerDir);
        TEMP_DIRS.forEach(TestKafka::deleteRecursively);
        TEMP_DIRS.clear();
    }
}
