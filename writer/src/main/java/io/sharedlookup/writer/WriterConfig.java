package io.sharedlookup.writer;

import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the writer runs with, validated.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param storeDir         the store directory shared with readers
 * @param topics           topic to namespace bindings, namespaces unique
 * @param kafkaProperties  consumer properties passed as-is (SASL/SSL and the rest)
 * @param httpHost         HTTP bind address
 * @param httpPort         HTTP port; 0 picks a free one
 * @param valueField       dotted JSON path of the lookup value, or empty for the raw UTF-8 value
 * @param maxValueBytes    values larger than this are skipped and counted
 * @param reverseIndex     keep a reverse index (value to keys) beside every generation, for reverse lookups
 * @param permissions      modes of the store directories and files this writer creates
 * @param seed             a snapshot directory seeding the namespaces the store lacks, if any
 */
public record WriterConfig(String bootstrapServers, Path storeDir, List<TopicBinding> topics,
                           Map<String, String> kafkaProperties, String httpHost, int httpPort,
                           Optional<String> valueField, int maxValueBytes, boolean reverseIndex,
                           StorePermissions permissions, Optional<Path> seed) {
    public static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;

    /** Without a seed. */
    public WriterConfig(String bootstrapServers, Path storeDir, List<TopicBinding> topics,
                        Map<String, String> kafkaProperties, String httpHost, int httpPort,
                        Optional<String> valueField, int maxValueBytes, boolean reverseIndex,
                        StorePermissions permissions) {
        this(bootstrapServers, storeDir, topics, kafkaProperties, httpHost, httpPort, valueField, maxValueBytes,
                reverseIndex, permissions, Optional.empty());
    }

    /** With the default permissions (0640 files, 0750 directories). */
    public WriterConfig(String bootstrapServers, Path storeDir, List<TopicBinding> topics,
                        Map<String, String> kafkaProperties, String httpHost, int httpPort,
                        Optional<String> valueField, int maxValueBytes, boolean reverseIndex) {
        this(bootstrapServers, storeDir, topics, kafkaProperties, httpHost, httpPort, valueField, maxValueBytes,
                reverseIndex, StorePermissions.DEFAULT);
    }

    /** Without a reverse index. */
    public WriterConfig(String bootstrapServers, Path storeDir, List<TopicBinding> topics,
                        Map<String, String> kafkaProperties, String httpHost, int httpPort,
                        Optional<String> valueField, int maxValueBytes) {
        this(bootstrapServers, storeDir, topics, kafkaProperties, httpHost, httpPort, valueField, maxValueBytes,
                false);
    }

    public WriterConfig {
        topics = List.copyOf(topics);
        kafkaProperties = Map.copyOf(kafkaProperties);
    }
}
