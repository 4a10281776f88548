package io.sharedlookup.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the benchmarks' feeds share: a compacted topic on their embedded broker, and a producer that batches. */
final class FeedTopics {
    private FeedTopics() {}

    /** Creates {@code topic} with {@code partitions}, compacted as reference data is, plus {@code configs}. */
    static void createCompacted(String bootstrapServers, String topic, int partitions, Map<String, String> configs)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, String> all = new HashMap<>(configs);
        all.put("cleanup.policy", "compact");
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()).configs(all)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** A string producer that batches (20 ms linger, 256 KiB batches) and waits for every replica, as a loader would. */
    static KafkaProducer<String, String> batchingProducer(String bootstrapServers) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.LINGER_MS_CONFIG,
                        20,
                        ProducerConfig.BATCH_SIZE_CONFIG,
                        262144,
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new StringSerializer());
    }
}
