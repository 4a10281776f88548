package io.sharedlookup.bench;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The Kafka side of {@link BootstrapHarness}, on the demo's executable jar (which holds Kafka and
 * {@link EmbeddedKafka}; the writer's jar has no broker). Two roles:
 * <ul>
 *   <li>{@code BootstrapFeed <records>}: starts a single-node broker, creates the compacted topic {@value #TOPIC}
 *       (one partition), produces {@code records} records ({@link BenchData} keys and values), prints
 *       {@code BOOTSTRAP <servers> <records> <produce ms>} and keeps the broker up until stdin closes;</li>
 *   <li>{@code BootstrapFeed --consume <servers> <decode|hashmap>}: the peers the writer is compared with, each in a
 *       JVM of its own like the writer: a bare {@link KafkaConsumer} that reads the topic from its beginning to its
 *       end offsets and only decodes keys and values as UTF-8 strings ({@code decode}), or that also keeps them in a
 *       {@link HashMap} ({@code hashmap}, what Druid's Kafka lookup does at every start). Consumer settings are the
 *       writer's defaults (docs/writer.md): {@code max.poll.records=500}, {@code fetch.max.bytes=8388608}, byte-array
 *       deserializers, partitions {@code assign()}ed. Prints {@code CONSUMED <records> <ms in this JVM>}.</li>
 * </ul>
 */
public final class BootstrapFeed {
    static final String TOPIC = "boot";

    private BootstrapFeed() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("--consume")) {
            consume(args[1], args[2].equals("hashmap"));
            return;
        }
        long records = Long.parseLong(args[0]);
        Path dataDir = Files.createTempDirectory("bootstrap-kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir)) {
            FeedTopics.createCompacted(kafka.bootstrapServers(), TOPIC, 1, Map.of());
            long start = System.nanoTime();
            try (KafkaProducer<String, String> producer = FeedTopics.batchingProducer(kafka.bootstrapServers())) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, BenchData.key(i), BenchData.value(i)));
                }
                producer.flush();
            }
            System.out.println("BOOTSTRAP " + kafka.bootstrapServers() + " " + records + " "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // until the harness closes stdin
            }
        } finally {
            try (var paths = Files.walk(dataDir)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void consume(String servers, boolean keep) {
        long start = System.nanoTime();
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                500,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                8388608);
        Map<String, String> map = new HashMap<>();
        long count = 0;
        long chars = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPIC).stream()
                    .map((PartitionInfo p) -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofMillis(100))) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
                    if (keep) {
                        if (value == null) {
                            map.remove(key);
                        } else {
                            map.put(key, value);
                        }
                    } else {
                        chars += key.length() + (value == null ? 0 : value.length());
                    }
                    count++;
                }
            }
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("CONSUMED " + count + " " + ms + " " + (keep ? map.size() : chars));
        System.out.flush();
    }
}
