package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterConfig;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The settings of the writer's Kafka consumer: ours where correctness needs them, then the user's. */
public final class ConsumerSettings {
    /** How often the consumer refreshes topic metadata, so that partitions added to a topic are noticed. */
    public static final int METADATA_MAX_AGE_MS = 5_000;

    private ConsumerSettings() {
    }

    /** The properties of a {@code KafkaConsumer<byte[], byte[]>} for {@code config}. */
    public static Properties of(WriterConfig config) {
        Properties p = new Properties();
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "shared-lookup-writer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Never create a mistyped topic by reading it.
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        // Every position is set explicitly (resume or beginning). A position the broker no longer has must not be
        // reset silently: "earliest" would replay a recreated topic over stale keys, or skip deletes after
        // truncation. With "none" the poll fails with OffsetOutOfRangeException and the namespace is rebuilt.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "10000");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        // The sidecar heap is 64 MB: Kafka's default 50 MB fetch would not fit. 8 MB still keeps up with 10k+/s.
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(8 << 20));
        // Kafka's default (5 min) would leave partitions added to a topic unread that long; one metadata request
        // every 5 s is negligible. The refresh happens inside poll(), without blocking it.
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Integer.toString(METADATA_MAX_AGE_MS));
        p.putAll(config.kafkaProperties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        // Decoding is ours, so that a bad record is counted and skipped instead of failing the poll.
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }
}
