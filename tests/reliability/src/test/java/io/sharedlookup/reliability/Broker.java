package io.sharedlookup.reliability;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real single-node KRaft broker in the test JVM (the demo-kafka module's {@link EmbeddedKafka}), a producer, and an
 * independent consumer that computes the topic's latest value per key: the oracle the store is compared with.
 *
 * <p>One per scenario class: {@code @RegisterExtension static final Broker broker = new Broker();} starts it before
 * the class's first test; after its last one, every child JVM still alive is killed by PID and the broker stopped.
 */
final class Broker implements BeforeAllCallback, AfterAllCallback {
    private Path dataDir;
    private EmbeddedKafka kafka;
    private KafkaProducer<byte[], byte[]> producer;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dataDir = Files.createTempDirectory("reliability-kafka-");
        kafka = EmbeddedKafka.start(dataDir);
        producer = newProducer();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Children.killAll();
        if (kafka == null) {
            return;
        }
        try {
            producer.close(Duration.ofSeconds(5));
        } finally {
            kafka.close();
            deleteRecursively(dataDir);
        }
    }

    String bootstrap() {
        return kafka.bootstrapServers();
    }

    private KafkaProducer<byte[], byte[]> newProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 << 20));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        // Not idempotent: its sequence bookkeeping made sends crawl through OUT_OF_ORDER_SEQUENCE retries here.
        // One request in flight keeps the order per partition.
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return new KafkaProducer<>(p);
    }

    /** A fresh producer (after a broker restart, the old one's idempotence state slows it down). */
    synchronized void resetProducer() {
        producer.close(Duration.ofSeconds(5));
        producer = newProducer();
    }

    void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty())
                    .configs(configs))).all().get(60, TimeUnit.SECONDS);
        }
    }

    void createTopic(String name, int partitions) throws Exception {
        createTopic(name, partitions, Map.of("cleanup.policy", "compact", "max.message.bytes", "16777216"));
    }

    synchronized void send(String topic, byte[] key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key, value));
    }

    void send(String topic, String key, String value) {
        send(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    synchronized void flush() {
        producer.flush();
    }

    /** Stops the broker keeping its data (an outage). */
    void stop() {
        kafka.stop();
    }

    void start() {
        kafka.start();
    }

    /** Stops the broker, deletes all its data (a new, empty cluster on the same ports) and starts it again. */
    void wipeAndRestart() throws Exception {
        kafka.stop();
        Path logs = dataDir.resolve("logs");
        deleteRecursively(logs);
        kafka.start();
        resetProducer();
    }

    /**
     * The topic's latest value per key (UTF-8 keys and values; tombstones remove), read from the beginning to the
     * end offsets by a consumer of its own. Records with a null key are ignored, as the writer does.
     */
    Map<String, String> latest(String topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("max.partition.fetch.bytes", Integer.toString(16 << 20));
        Map<String, String> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (tps.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("independent consumer did not reach the end offsets " + end);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.key() == null) {
                        continue;
                    }
                    String k = new String(r.key(), StandardCharsets.UTF_8);
                    if (r.value() == null) {
                        out.remove(k);
                    } else {
                        out.put(k, new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return out;
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

}
