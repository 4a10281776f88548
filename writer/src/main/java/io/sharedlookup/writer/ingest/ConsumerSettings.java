package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The settings of the writer's Kafka consumer: ours where correctness needs them, then the user's. */
public final class ConsumerSettings {
    /** How often the consumer refreshes topic metadata, so that partitions added to a topic are noticed. */
    public static final int METADATA_MAX_AGE_MS = 5_000;

    private ConsumerSettings() {}

    /**
     * Settings the store's correctness rests on, which no consumer property may change:
     * <ul>
     *   <li>no auto commit: positions live in the manifest, with the data they describe;</li>
     *   <li>never create a mistyped topic by reading it;</li>
     *   <li>a position the broker no longer has is never reset silently ({@code earliest} would replay a recreated
     *       topic over stale keys, or skip deletes after truncation): with {@code none} the poll fails with
     *       OffsetOutOfRangeException and the namespace is rebuilt;</li>
     *   <li>only committed records: a transaction's records are applied once it commits, never when it aborts;</li>
     *   <li>checksums checked: a record batch damaged on the broker is detected and skipped (see
     *       {@code UnreadablePartitions}), never applied.</li>
     * </ul>
     */
    private static final Map<String, String> FIXED = Map.of(
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
            ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.CHECK_CRCS_CONFIG, "true");

    /**
     * Refuses consumer properties that would change one of the writer's fixed settings.
     *
     * @throws IllegalArgumentException naming the property, the writer's value and why
     */
    public static void requireCompatible(Map<String, String> properties) {
        for (Map.Entry<String, String> fixed : FIXED.entrySet()) {
            String given = properties.get(fixed.getKey());
            if (given != null && !given.trim().equalsIgnoreCase(fixed.getValue())) {
                throw new IllegalArgumentException("Consumer property " + fixed.getKey() + "=" + given + " would let "
                        + "the store diverge from the topic; the writer sets " + fixed.getKey() + "="
                        + fixed.getValue() + " itself: remove it");
            }
        }
    }

    /** The properties of a {@code KafkaConsumer<byte[], byte[]>} for {@code config}. */
    public static Properties of(WriterConfig config) {
        Properties p = new Properties();
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "shared-lookup-writer");
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "10000");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        // The sidecar heap is 64 MB: Kafka's default 50 MB fetch would not fit. 8 MB still keeps up with 10k+/s.
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(8 << 20));
        // Kafka's default (5 min) would leave partitions added to a topic unread that long; one metadata request
        // every 5 s is negligible. The refresh happens inside poll(), without blocking it.
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Integer.toString(METADATA_MAX_AGE_MS));
        p.putAll(config.kafkaProperties());
        p.putAll(FIXED);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        // Decoding is ours, so that a bad record is counted and skipped instead of failing the poll.
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }
}
