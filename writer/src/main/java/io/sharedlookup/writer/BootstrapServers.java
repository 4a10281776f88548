package io.sharedlookup.writer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The syntax of {@code --bootstrap-servers}, checked while the options are parsed: Kafka finds a broker without a
 * port only when the consumer is built, and says so with a stack trace.
 */
final class BootstrapServers {
    /**
     * What Kafka's client accepts: an optional {@code LISTENER://}, a host (an IPv6 address in brackets, or bare as
     * Kafka allows) and a port.
     */
    private static final Pattern ENTRY =
            Pattern.compile("(?:[A-Za-z0-9_]+://)?(\\[[0-9A-Za-z:.%]+\\]|[^\\s\\[\\]/,]+):([0-9]{1,5})");

    private BootstrapServers() {}

    /**
     * @param servers the trimmed, non-empty option value
     * @throws ConfigException naming the first entry that is not {@code HOST:PORT}
     */
    static void validate(String servers) {
        boolean any = false;
        for (String entry : servers.split(",", -1)) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue; // Kafka skips empty entries too
            }
            Matcher m = ENTRY.matcher(e);
            int port = m.matches() ? Integer.parseInt(m.group(2)) : 0;
            if (port < 1 || port > 65535) {
                throw invalid(servers, "'" + e + "' is not HOST:PORT with a port from 1 to 65535");
            }
            any = true;
        }
        if (!any) {
            throw invalid(servers, "it names no broker");
        }
    }

    /**
     * Whether the host of any entry resolves now. Kafka's client builds no consumer when none does, and logs a WARN
     * for each host at each attempt: asked first, the writer can retry with one WARN of its own until DNS knows one.
     *
     * @param servers a value {@link #validate} accepted
     */
    static boolean anyHostResolves(String servers) {
        for (String entry : servers.split(",")) {
            Matcher m = ENTRY.matcher(entry.trim());
            if (m.matches()) {
                try {
                    InetAddress.getAllByName(m.group(1)); // an IPv6 literal in brackets too
                    return true;
                } catch (UnknownHostException e) {
                    // the next entry's may
                }
            }
        }
        return false;
    }

    private static ConfigException invalid(String servers, String why) {
        return new ConfigException("Invalid --bootstrap-servers '" + servers + "': " + why + "; list the brokers as "
                + "HOST:PORT[,HOST:PORT...], e.g. kafka-1:9092,kafka-2:9092 ([::1]:9092 for an IPv6 address)");
    }
}
