package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterConfig;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's one admin client, made on first use and kept: the health check asks the broker about every topic each
 * 5 s ({@link TopicWatch}), and an admin client per ask would cost a connection, a metadata round trip and a thread
 * each time. Used by the ingest thread only; closed with it.
 */
final class BrokerAdmin implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrokerAdmin.class);
    /** How long any one admin request may take before its answer fails: the ingest thread never waits for it. */
    static final int REQUEST_TIMEOUT_MS = 10_000;

    private final WriterConfig config;
    private Admin admin;

    BrokerAdmin(WriterConfig config) {
        this.config = config;
    }

    /**
     * The admin client, made now if it was not yet; null when it cannot be made now (no bootstrap host resolves yet):
     * asked again next time.
     */
    Admin get() {
        if (admin == null) {
            Properties props = new Properties();
            props.putAll(config.kafkaProperties());
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "shared-lookup-writer-admin");
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
            try {
                admin = Admin.create(props);
            } catch (KafkaException e) {
                log.debug("Cannot make the admin client now: {}", e.toString());
                return null;
            }
        }
        return admin;
    }

    @Override
    public void close() {
        if (admin != null) {
            try {
                admin.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                log.debug("Admin client close failed", e);
            }
            admin = null;
        }
    }
}
