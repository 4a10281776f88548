package io.sharedlookup.bench;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The broker side of {@link LookupStores}, on the demo's executable jar (which holds Kafka and {@link EmbeddedKafka}):
 * {@code LookupStoreFeed <shape> <valueBytes> <entries> <partitions>} starts a single-node broker, creates the
 * compacted topic {@value BenchData#NAMESPACE} with {@code partitions} partitions, produces the {@link KeyShapes}
 * entries (keyed, so the default partitioner spreads them as production keys are spread), prints
 * {@code FED <servers> <produce ms>} and keeps the broker up until stdin closes.
 */
public final class LookupStoreFeed {
    private LookupStoreFeed() {}

    public static void main(String[] args) throws Exception {
        KeyShapes shape = KeyShapes.of(args[0]);
        int valueBytes = Integer.parseInt(args[1]);
        int entries = Integer.parseInt(args[2]);
        int partitions = Integer.parseInt(args[3]);
        Path dataDir = Files.createTempDirectory("lookup-store-kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir)) {
            FeedTopics.createCompacted(kafka.bootstrapServers(), BenchData.NAMESPACE, partitions, Map.of());
            long start = System.nanoTime();
            try (KafkaProducer<String, String> producer = FeedTopics.batchingProducer(kafka.bootstrapServers())) {
                for (int i = 0; i < entries; i++) {
                    producer.send(
                            new ProducerRecord<>(BenchData.NAMESPACE, shape.key(i), KeyShapes.value(i, valueBytes)));
                }
                producer.flush();
            }
            System.out.println(
                    "FED " + kafka.bootstrapServers() + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // until LookupStores closes stdin
            }
        } finally {
            try (var paths = Files.walk(dataDir)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }
}
