package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One WARN when Kafka becomes unreachable and one a period while it lasts, with how long; one INFO when it answers
 * again. A fake clock.
 */
class BrokerOutageTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final BrokerOutage outage;

    BrokerOutageTest() {
        Logger logger = new LoggerContext().getLogger("outage-test");
        logged.start();
        logger.addAppender(logged);
        outage = new BrokerOutage(logger, 60_000, now::get);
        outage.bootstrapServers("kafka-1:9092");
    }

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private List<String> lines(Level level) {
        return logged.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void failuresSeveralTimesASecond_oneWarnAMinuteWithTheAddressAndHowLong() {
        for (int i = 0; i < 150; i++) { // two and a half minutes of a failure every second
            outage.failed("Connection to node -1 (kafka-1/10.0.0.1:9092) could not be established");
            advanceMillis(1000);
        }
        assertThat(lines(Level.WARN)).hasSize(3);
        assertThat(lines(Level.WARN).get(0))
                .startsWith("Kafka at kafka-1:9092 is unreachable (Connection to node -1 "
                        + "(kafka-1/10.0.0.1:9092) could not be established)")
                .contains("once every 60 s");
        assertThat(lines(Level.WARN).get(1))
                .startsWith("Kafka at kafka-1:9092 has been unreachable for 60 s (60 "
                        + "failed attempts since the last message");
        assertThat(lines(Level.WARN).get(2)).startsWith("Kafka at kafka-1:9092 has been unreachable for 120 s");
        assertThat(outage.withDuration("no answer")).isEqualTo("no answer (unreachable for 150 s)");
    }

    @Test
    void theClientsMessage_withoutItsPrefixAndItsNodeMayNotBeAvailable() {
        assertThat(KafkaConnectionWarnings.detail("[Consumer clientId=w, groupId=null] Connection to node -1 "
                        + "(/127.0.0.1:9) could not be established. Node may not be available."))
                .isEqualTo("Connection to node -1 (/127.0.0.1:9) could not be established");
        assertThat(KafkaConnectionWarnings.detail("Bootstrap broker 127.0.0.1:9 (id: -1 rack: null) disconnected"))
                .isEqualTo("Bootstrap broker 127.0.0.1:9 (id: -1 rack: null) disconnected");
    }

    @Test
    void answeredAgain_oneInfo_onlyOnceNoFailureCameForAMoment() {
        outage.failed("timeout");
        advanceMillis(500);
        assertThat(outage.reachable()).as("an outage, still its own to end").isTrue();
        assertThat(lines(Level.INFO))
                .as("a failure half a second ago: not over yet")
                .isEmpty();
        advanceMillis(5000);
        assertThat(outage.reachable()).isTrue();
        assertThat(lines(Level.INFO)).containsExactly("Kafka at kafka-1:9092 is reachable again, after 0 s");
        assertThat(outage.reachable()).as("over: nothing more to tell").isFalse();
        assertThat(outage.withDuration("no answer")).isEqualTo("no answer");
    }

    @Test
    void aNewOutageWithinTheMinute_itsOwnWarnAtOnce_butAFlappingBrokerOnlyOnceIn10s() {
        outage.failed("timeout");
        advanceMillis(11_000);
        outage.reachable(); // the first outage: told, and ended
        outage.failed("timeout 2"); // 11 s after the first WARN, well within its minute
        assertThat(lines(Level.WARN))
                .hasSize(2)
                .last()
                .asString()
                .startsWith("Kafka at kafka-1:9092 is unreachable (timeout 2)");
        advanceMillis(3000);
        outage.reachable();
        assertThat(lines(Level.INFO))
                .hasSize(2)
                .last()
                .asString()
                .isEqualTo("Kafka at kafka-1:9092 is reachable " + "again, after 0 s");

        advanceMillis(1000); // 4 s after the last "is unreachable": a flapping broker
        outage.failed("timeout 3");
        advanceMillis(3000);
        outage.reachable();
        assertThat(lines(Level.WARN)).as("a third outage within 10 s: untold").hasSize(2);
        assertThat(lines(Level.INFO)).as("nor its end").hasSize(2);
        outage.failed("timeout 4"); // 7 s after: also untold while under 10 s, told once it lasts past them
        advanceMillis(2000);
        outage.failed("timeout 4");
        assertThat(lines(Level.WARN)).hasSize(2);
        advanceMillis(1000);
        outage.failed("timeout 4");
        assertThat(lines(Level.WARN))
                .hasSize(3)
                .last()
                .asString()
                .startsWith("Kafka at kafka-1:9092 is unreachable (timeout 4)")
                .endsWith("; 1 shorter outage since the last such message went untold");
    }

    @Test
    void aBrokerOfTheClusterFailing_isNoOutage_andDoesNotKeepOneFromEnding() {
        assertThat(outage.nodeFailed("Connection to node 2 (b2/10.0.0.2:9092) could not be established"))
                .as("no outage declared: the caller logs it")
                .isFalse();
        assertThat(outage.withDuration("p")).isEqualTo("p");
        assertThat(logged.list).isEmpty();

        outage.failed("it did not answer");
        advanceMillis(500);
        assertThat(outage.nodeFailed("Connection to node 2 (b2/10.0.0.2:9092) could not be established"))
                .as("counted within the declared outage")
                .isTrue();
        for (int i = 0; i < 60; i++) { // the client retries the dead broker for as long as it is down
            advanceMillis(1000);
            outage.nodeFailed("Connection to node 2 (b2/10.0.0.2:9092) could not be established");
        }
        assertThat(lines(Level.WARN))
                .hasSize(2)
                .last()
                .asString()
                .startsWith(
                        "Kafka at kafka-1:9092 has been "
                                + "unreachable for 60 s (61 failed attempts since the last message; the last: Connection to node 2");
        assertThat(outage.reachable()).isTrue();
        assertThat(lines(Level.INFO))
                .as("the other brokers answered: over, although node 2 just failed")
                .containsExactly("Kafka at kafka-1:9092 is reachable again, after 60 s");
        assertThat(outage.nodeFailed("Connection to node 2 (b2/10.0.0.2:9092) could not be established"))
                .isFalse();
    }
}
