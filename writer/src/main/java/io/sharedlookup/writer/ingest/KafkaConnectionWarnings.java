package io.sharedlookup.writer.ingest;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logback filter (declared in the writer's {@code logback.xml}) that keeps Kafka's client from repeating, several
 * times a second while no broker answers, "Connection to node -1 (…) could not be established. Node may not be
 * available." and "Bootstrap broker … disconnected": each is handed to {@link BrokerOutage}, which says it once a
 * minute with how long it has lasted. The same line about a broker of the cluster (a node id of 0 or more) is handed
 * over only during an outage so declared (or declared by the writer's own timeouts); otherwise it is logged as Kafka
 * logs it, since one broker down in a cluster that still serves is not Kafka unreachable. Every other Kafka client
 * warning is logged as before.
 */
public final class KafkaConnectionWarnings extends TurboFilter {
    /** The client class that logs them. */
    static final String NETWORK_CLIENT = "org.apache.kafka.clients.NetworkClient";

    private static final String CANNOT_CONNECT = "could not be established. Node may not be available.";
    private static final String BOOTSTRAP_GONE = "disconnected";
    private final BrokerOutage outage;

    /** The filter logback makes: it hands over to the JVM's {@link BrokerOutage#shared()}. */
    public KafkaConnectionWarnings() {
        this(BrokerOutage.shared());
    }

    KafkaConnectionWarnings(BrokerOutage outage) {
        this.outage = outage;
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        // Called for every log call in the JVM: the cheapest tests first.
        if (format == null || level != Level.WARN || !NETWORK_CLIENT.equals(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        boolean cannotConnect = format.endsWith(CANNOT_CONNECT);
        if (!cannotConnect && !(format.contains("Bootstrap broker ") && format.endsWith(BOOTSTRAP_GONE))) {
            return FilterReply.NEUTRAL;
        }
        String detail = detail(MessageFormatter.arrayFormat(format, params).getMessage());
        if (!cannotConnect || bootstrapNode(detail)) {
            outage.failed(detail);
            return FilterReply.DENY;
        }
        // A broker of the cluster: one down while others serve is no outage, and Kafka's own WARN says which it is.
        return outage.nodeFailed(detail) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }

    /**
     * Whether the client's "Connection to node N (…)" is about a bootstrap server: those have negative ids (-1…)
     * until the cluster's metadata names its brokers; failing to reach every one of them is failing to reach Kafka.
     */
    static boolean bootstrapNode(String detail) {
        String prefix = "Connection to node ";
        int end = detail.indexOf(' ', prefix.length());
        if (!detail.startsWith(prefix) || end < 0) {
            return false;
        }
        try {
            return Integer.parseInt(detail.substring(prefix.length(), end)) < 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * The client's message without the client's name Kafka prefixes ("[Consumer clientId=…, groupId=…] ") and
     * without "Node may not be available.": "Connection to node -1 (/127.0.0.1:9092) could not be established".
     */
    static String detail(String message) {
        String out = message.startsWith("[") && message.indexOf("] ") > 0
                ? message.substring(message.indexOf("] ") + 2)
                : message;
        int unavailable = out.indexOf(". Node may not be available");
        if (unavailable > 0) {
            out = out.substring(0, unavailable);
        }
        return out;
    }
}
