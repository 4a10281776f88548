package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The filter in a logback context of its own, fed the client's warnings as Kafka's NetworkClient logs them: a broker of
 * the cluster down is Kafka's own WARN, not an outage; the bootstrap servers not answering is.
 */
class KafkaConnectionWarningsTest {
    private static final String CANNOT_CONNECT = "[Consumer clientId=w, groupId=g] Connection to node {} ({}) could "
            + "not be established. Node may not be available.";
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ListAppender<ILoggingEvent> clientLines = new ListAppender<>();
    private final ListAppender<ILoggingEvent> outageLines = new ListAppender<>();
    private final Logger client;

    KafkaConnectionWarningsTest() {
        LoggerContext context = new LoggerContext();
        Logger outageLogger = context.getLogger("outage-test");
        BrokerOutage outage = new BrokerOutage(outageLogger, 60_000, now::get);
        outage.bootstrapServers("b1:9092,b2:9092,b3:9092");
        KafkaConnectionWarnings filter = new KafkaConnectionWarnings(outage);
        filter.start();
        context.addTurboFilter(filter);
        client = context.getLogger(KafkaConnectionWarnings.NETWORK_CLIENT);
        clientLines.start();
        client.addAppender(clientLines);
        outageLines.start();
        outageLogger.addAppender(outageLines);
    }

    @Test
    void oneBrokerOfTheClusterDown_isKafkasOwnWarn_notAnOutage() {
        for (int i = 0; i < 3; i++) {
            client.warn(CANNOT_CONNECT, "2", "b2/10.0.0.2:9092");
        }
        assertThat(clientLines.list)
                .hasSize(3)
                .allMatch(e -> e.getLevel() == Level.WARN)
                .allMatch(e -> e.getFormattedMessage()
                        .contains("Connection to node 2 (b2/10.0.0.2:9092) could not "
                                + "be established. Node may not be available."));
        assertThat(outageLines.list).as("Kafka is not unreachable").isEmpty();
    }

    @Test
    void theBootstrapServersNotAnswering_isAnOutage_andThenABrokersLineIsPartOfIt() {
        client.warn(CANNOT_CONNECT, "-1", "b1/10.0.0.1:9092");
        client.warn("Bootstrap broker {} disconnected", "b2:9092 (id: -2 rack: null)");
        client.warn(CANNOT_CONNECT, "2", "b2/10.0.0.2:9092");
        assertThat(clientLines.list).as("all summarised").isEmpty();
        assertThat(outageLines.list)
                .singleElement()
                .extracting(ILoggingEvent::getFormattedMessage)
                .asString()
                .startsWith("Kafka at b1:9092,b2:9092,b3:9092 is unreachable (Connection to node -1 "
                        + "(b1/10.0.0.1:9092) could not be established)");
    }
}
