package io.sharedlookup.writer.ingest;

import org.apache.kafka.common.KafkaException;

/**
 * No bootstrap host resolves, so the consumer cannot be built yet: Kafka's client (4.3) refuses to build one, and a
 * Kafka service whose DNS name Kubernetes has not published yet looks just like that. Retried like a broker that does
 * not answer, not a configuration error.
 */
public final class UnresolvedBootstrapException extends KafkaException {
    private static final long serialVersionUID = 1L;

    public UnresolvedBootstrapException(String bootstrapServers) {
        super("Kafka bootstrap host(s) " + bootstrapServers + " do not resolve (yet)");
    }
}
