package io.sharedlookup.writer.ingest;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the resume decision needs to know of each topic besides its offsets: its delete.retention.ms (resuming from
 * offsets older than that could miss deletes) and its topic id (a topic deleted and recreated under the same name has
 * a new one, whatever its offsets).
 */
@FunctionalInterface
interface TopicFacts {
    /**
     * @param deleteRetentionMillis the topic's delete.retention.ms, or -1 when it cannot be read
     * @param topicId               the topic's id, or null when it cannot be read
     */
    record Facts(long deleteRetentionMillis, String topicId) {
        static final Facts UNKNOWN = new Facts(-1, null);
    }

    /**
     * Per topic, what could be read; a topic is missing when nothing could (the resume decision then assumes Kafka's
     * default delete.retention.ms, a day, and skips the topic id check).
     */
    Map<String, Facts> of(Collection<String> topics);

    /** Asks the brokers with the writer's one admin client (made on first use, kept: {@link BrokerAdmin}). */
    static TopicFacts viaAdmin(BrokerAdmin brokerAdmin) {
        Logger log = LoggerFactory.getLogger(TopicFacts.class);
        return topics -> {
            Map<String, Long> retention = new HashMap<>();
            Map<String, String> ids = new HashMap<>();
            Admin admin = brokerAdmin.get();
            if (admin != null) {
                List<ConfigResource> resources = topics.stream()
                        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                        .toList();
                // Both asked at once, answered within one bound: a slow broker delays the start by it, not twice.
                KafkaFuture<Map<ConfigResource, Config>> configs =
                        admin.describeConfigs(resources).all();
                KafkaFuture<Map<String, TopicDescription>> described =
                        admin.describeTopics(topics).allTopicNames();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                try {
                    configs.get(remaining(deadline), TimeUnit.NANOSECONDS).forEach((r, c) -> {
                        ConfigEntry entry = c.get("delete.retention.ms");
                        if (entry != null && entry.value() != null) {
                            retention.put(r.name(), Long.parseLong(entry.value()));
                        }
                    });
                } catch (Exception e) {
                    warn(
                            log,
                            "delete.retention.ms",
                            "a stop longer than a day (Kafka's default) then rebuilds; "
                                    + "grant the writer's Kafka principal DESCRIBE_CONFIGS on the topics",
                            e);
                }
                try {
                    described.get(remaining(deadline), TimeUnit.NANOSECONDS).forEach((name, d) -> {
                        if (d.topicId() != null && !Uuid.ZERO_UUID.equals(d.topicId())) { // zero: a broker before 2.8
                            ids.put(name, d.topicId().toString());
                        }
                    });
                } catch (Exception e) {
                    warn(log, "ids", "resuming without the check that the topic was not recreated", e);
                }
            }
            Map<String, Facts> out = new HashMap<>();
            for (String topic : topics) {
                out.put(topic, new Facts(retention.getOrDefault(topic, -1L), ids.get(topic)));
            }
            return out;
        };
    }

    private static long remaining(long deadlineNanos) {
        return Math.max(0, deadlineNanos - System.nanoTime());
    }

    private static void warn(Logger log, String what, String consequence, Exception e) {
        log.warn("Cannot read the {} of the topics ({}): {}", what, e.toString(), consequence);
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
    }
}
