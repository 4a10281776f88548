package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterConfig;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The topics' delete.retention.ms: resuming from offsets older than that could miss deletes. */
@FunctionalInterface
interface DeleteRetention {
    /** Per topic, its delete.retention.ms; a topic is missing when it cannot be read (resume skips that check). */
    Map<String, Long> of(Collection<String> topics);

    /** Asks the brokers of {@code config} with an admin client of its own, once per call. */
    static DeleteRetention viaAdmin(WriterConfig config) {
        Logger log = LoggerFactory.getLogger(DeleteRetention.class);
        return topics -> {
            Map<String, Long> out = new HashMap<>();
            Properties props = new Properties();
            props.putAll(config.kafkaProperties());
            props.put("bootstrap.servers", config.bootstrapServers());
            props.put("client.id", "shared-lookup-writer-admin");
            try (Admin admin = Admin.create(props)) {
                List<ConfigResource> resources = topics.stream()
                        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
                Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all()
                        .get(10, TimeUnit.SECONDS);
                configs.forEach((r, c) -> {
                    ConfigEntry entry = c.get("delete.retention.ms");
                    if (entry != null && entry.value() != null) {
                        out.put(r.name(), Long.parseLong(entry.value()));
                    }
                });
            } catch (Exception e) {
                log.warn("Cannot read delete.retention.ms of the topics ({}); resuming without that check",
                        e.toString());
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
            return out;
        };
    }
}
