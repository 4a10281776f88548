package io.sharedlookup.writer;

import io.sharedlookup.writer.ingest.ConsumerSettings;
import io.sharedlookup.writer.ingest.UnresolvedBootstrapException;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * What the Kafka client throws at start when the configuration cannot work, as the one line of a
 * {@link ConfigException}: Kafka's own exceptions bury the reason under wrappers and a stack trace, and an operator
 * must learn from the line which setting to fix.
 */
final class KafkaStartErrors {
    /** Kafka's wrappers around the reason, which say nothing of it. */
    private static final Set<String> WRAPPERS =
            Set.of("Failed to construct kafka consumer", "Failed to create new NetworkClient");

    private KafkaStartErrors() {}

    /**
     * Builds the writer's consumer. Building one talks to no broker: it fails only on its settings, or on a file or
     * JAAS entry they name (a truststore that is missing, a protocol that does not exist), or when no bootstrap host
     * resolves.
     *
     * @throws UnresolvedBootstrapException when no bootstrap host resolves (yet): retried, not a configuration error
     * @throws ConfigException naming the reason otherwise
     */
    static KafkaConsumer<byte[], byte[]> consumer(WriterConfig config) {
        if (!BootstrapServers.anyHostResolves(config.bootstrapServers())) {
            throw new UnresolvedBootstrapException(config.bootstrapServers());
        }
        return consumer(ConsumerSettings.of(config));
    }

    /**
     * Checks the consumer settings other than the bootstrap servers by building a consumer with an address that needs
     * no DNS: Kafka resolves the bootstrap hosts before it reads the rest, and a missing truststore must be an error
     * at start even while those hosts do not resolve.
     *
     * @throws ConfigException naming the reason
     */
    static void checkAllButBootstrap(WriterConfig config) {
        Properties settings = ConsumerSettings.of(config);
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092"); // never connected to: only built
        consumer(settings).close();
    }

    /** Builds a consumer; a host that stopped resolving since {@link BootstrapServers#anyHostResolves} is told too. */
    static KafkaConsumer<byte[], byte[]> consumer(Properties settings) {
        try {
            return new KafkaConsumer<>(settings);
        } catch (KafkaException e) {
            if (unresolved(e)) {
                throw new UnresolvedBootstrapException(settings.getProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
            }
            throw new ConfigException("The Kafka consumer settings do not work: " + reason(e) + ": fix "
                    + "--bootstrap-servers, --kafka-property or --kafka-config");
        }
    }

    /**
     * Kafka's client (4.3) refuses to build a consumer when none of bootstrap.servers resolves, with only this message
     * to tell it from settings that cannot work (KafkaStartErrorsTest builds one for a host that never resolves).
     */
    private static boolean unresolved(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.config.ConfigException
                    && t.getMessage() != null
                    && t.getMessage().startsWith("No resolvable bootstrap urls")) {
                return true;
            }
        }
        return false;
    }

    /** The broker refused the writer's credentials, or the TLS handshake with it failed. */
    static ConfigException authentication(AuthenticationException e, String bootstrapServers) {
        return new ConfigException("Kafka at " + bootstrapServers + " did not accept the writer's connection: "
                + reason(e) + ": fix the security settings (security.protocol, sasl.*, ssl.*) in --kafka-property or "
                + "--kafka-config, or the writer's principal on the broker");
    }

    /**
     * The innermost message Kafka wrote for the failure, followed by the JDK's exception under it (a file not found,
     * a JAAS entry missing), on one line.
     */
    static String reason(Throwable e) {
        String kafka = null;
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KafkaException && t.getMessage() != null && !WRAPPERS.contains(t.getMessage())) {
                kafka = t.getMessage();
            }
            root = t;
        }
        String reason;
        if (root instanceof KafkaException) {
            reason = kafka != null ? kafka : root.getClass().getSimpleName();
        } else {
            String jdk = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
            reason = kafka == null || kafka.equals(root.toString()) ? jdk : kafka + " (" + jdk + ")";
        }
        return reason.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
