package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** SHARED_LOOKUP_* variables that are not settings: warned of at start, unless Kubernetes put them there. */
class SettingSourcesTest {
    @TempDir
    Path tmp;

    /** The WARN lines of SettingSources while the writer's command line is parsed with {@code env}. */
    private List<String> warningsParsing(Map<String, String> env) {
        Logger logger = (Logger) LoggerFactory.getLogger(SettingSources.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            WriterMain.parse(
                    new String[] {"--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t"},
                    env,
                    new PrintStream(new ByteArrayOutputStream()));
        } finally {
            logger.detachAppender(log);
        }
        return log.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void aMisspelledVariableIsWarnedOfWithTheNearestSetting() {
        assertThat(warningsParsing(Map.of(
                        "SHARED_LOOKUP_HTTP_PROT",
                        "8080",
                        "SHARED_LOOKUP_BOOTSTRAP_SERVER",
                        "k:2",
                        "SHARED_LOOKUP_COLOUR",
                        "blue",
                        "OTHER_HTTP_PROT",
                        "1")))
                .containsExactly(
                        "Ignoring SHARED_LOOKUP_BOOTSTRAP_SERVER: no such setting (did you mean "
                                + "SHARED_LOOKUP_BOOTSTRAP_SERVERS?)",
                        "Ignoring SHARED_LOOKUP_COLOUR: no such setting",
                        "Ignoring SHARED_LOOKUP_HTTP_PROT: no such setting (did you mean SHARED_LOOKUP_HTTP_PORT?)");
    }

    /** What the container image sets, and what Kubernetes injects for Services named shared-lookup and shared-lookup-x. */
    @Test
    void settingsAndKubernetesServiceLinksAreNotWarnedOf() {
        Map<String, String> env = new TreeMap<>(Map.of(
                "SHARED_LOOKUP_STORE_DIR",
                tmp.toString(),
                "SHARED_LOOKUP_HTTP_HOST",
                "0.0.0.0",
                "SHARED_LOOKUP_HTTP_PORT",
                "7070",
                "SHARED_LOOKUP_KAFKA_PROPERTY",
                "client.rack=a",
                "SHARED_LOOKUP_REVERSE_INDEX",
                "false"));
        for (String service : List.of("SHARED_LOOKUP_", "SHARED_LOOKUP_X_")) {
            env.put(service + "SERVICE_HOST", "10.0.0.7");
            env.put(service + "SERVICE_PORT", "7070");
            env.put(service + "SERVICE_PORT_HTTP_API", "7070");
            env.put(service + "PORT", "tcp://10.0.0.7:7070");
            env.put(service + "PORT_7070_TCP", "tcp://10.0.0.7:7070");
            env.put(service + "PORT_7070_TCP_PROTO", "tcp");
            env.put(service + "PORT_7070_TCP_PORT", "7070");
            env.put(service + "PORT_7070_TCP_ADDR", "10.0.0.7");
            env.put(service + "PORT_53_UDP_ADDR", "10.0.0.7");
        }
        assertThat(warningsParsing(env)).isEmpty();
        // Without a Service of that prefix, a name shaped like a link variable is a typo like any other.
        assertThat(warningsParsing(Map.of("SHARED_LOOKUP_HTP_PORT", "7070")))
                .containsExactly(
                        "Ignoring SHARED_LOOKUP_HTP_PORT: no such setting (did you mean SHARED_LOOKUP_HTTP_PORT?)");
    }

    /**
     * A Service named shared-lookup-http makes Kubernetes set SHARED_LOOKUP_HTTP_PORT=tcp://…, the variable of
     * --http-port: left out with a WARN saying so, rather than failing the start with "Invalid --http-port".
     */
    @Test
    void aServiceLinkInASettingsVariableIsLeftOutAndSaidSo() {
        Logger logger = (Logger) LoggerFactory.getLogger(SettingSources.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        WriterConfig config;
        try {
            config = (WriterConfig) WriterMain.parse(
                    new String[] {"--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t"},
                    Map.of(
                            "SHARED_LOOKUP_HTTP_PORT",
                            "tcp://10.0.0.7:7070",
                            "SHARED_LOOKUP_HTTP_SERVICE_HOST",
                            "10.0.0.7",
                            "SHARED_LOOKUP_HTTP_SERVICE_PORT",
                            "7070"),
                    new PrintStream(new ByteArrayOutputStream()));
        } finally {
            logger.detachAppender(log);
        }
        assertThat(config.httpPort()).isEqualTo(WriterConfig.DEFAULT_HTTP_PORT);
        assertThat(log.list)
                .map(ILoggingEvent::getFormattedMessage)
                .containsExactly("Ignoring "
                        + "SHARED_LOOKUP_HTTP_PORT=tcp://10.0.0.7:7070: it is the link variable Kubernetes sets for a Service "
                        + "named shared-lookup-http, not a setting; pass the setting on the command line, or set "
                        + "enableServiceLinks: false in the pod spec");
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndReplacements() {
        assertThat(SettingSources.editDistance("HTTP_PROT", "HTTP_PORT")).isEqualTo(2);
        assertThat(SettingSources.editDistance("TOPICS", "TOPIC")).isEqualTo(1);
        assertThat(SettingSources.editDistance("", "SEED")).isEqualTo(4);
        assertThat(SettingSources.editDistance("SEED", "SEED")).isZero();
    }
}
