package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.ingest.BrokerOutage;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The writer's process started while no broker answers (a closed port): HTTP answers from the first seconds, saying
 * why it is not ready; Kafka's client warnings about the broker are summarised; a second writer of the same store
 * fails at once with its lock error.
 */
class StartWithoutKafkaTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    /** The summary's period in these writers, instead of a minute. */
    private static final long PERIOD_MILLIS = 3000;
    /**
     * From the process's start to HTTP's first answer: about a second on an idle 2-core host, but up to 20 s were seen
     * with the host's load at 40 (the JVM, logback and Netty starting), hence the room. The proof that nothing waits
     * for Kafka before HTTP is the first answer's reason (below), whatever the load: it said the start was still
     * going on; before, HTTP came after the layout probe and Kafka's 10 s to list the topics.
     */
    private static final Duration HTTP_WITHIN = Duration.ofSeconds(30);

    private static WriterProcess startWriter(String name, String bootstrap, Path store) throws Exception {
        List<String> jvmOptions = new ArrayList<>(ChildJvm.chronicleFlags());
        jvmOptions.add("-D" + BrokerOutage.PERIOD_PROPERTY + "=" + PERIOD_MILLIS);
        return WriterProcess.start(
                args -> ChildJvm.start(name, LOGS, jvmOptions, WriterMain.class, args), bootstrap, store, "users");
    }

    @Test
    void brokerDown_httpAnswersAtOnce_oneWarnAPeriod_andASecondWriterFailsAtOnce() throws Exception {
        String bootstrap = "127.0.0.1:" + Ports.freePort(); // nothing listens there
        Path store = TestKafka.tempStore();
        long started = System.nanoTime(); // the process is started next (the OS keeps no reliable start time here)
        try (WriterProcess writer = startWriter("no-broker", bootstrap, store)) {
            AtomicReference<HttpResponse<String>> ready = new AtomicReference<>();
            await("HTTP answers")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        try {
                            ready.set(writer.get("/ready"));
                            return true;
                        } catch (java.io.IOException closed) {
                            return !writer.jvm.isAlive();
                        }
                    });
            Duration toHttp = Duration.ofNanos(System.nanoTime() - started);
            assertThat(writer.jvm.isAlive())
                    .as("writer alive; output: %s", writer.jvm.lines())
                    .isTrue();
            assertThat(toHttp)
                    .as("from the process's start to HTTP's first answer")
                    .isLessThan(HTTP_WITHIN);
            assertThat(ready.get().statusCode()).isEqualTo(503);
            // Whatever the load, the first answer comes while the start still waits for Kafka, not after it gave up.
            assertThat(ready.get().body()).contains("\"users\" : \"the writer is starting: ");
            await("/ready says the writer is connecting to Kafka, and since when")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> writer.get("/ready")
                            .body()
                            .matches("(?s).*connecting to Kafka at " + bootstrap + " since \\d+ s.*"));
            HttpResponse<String> health = writer.get("/health");
            assertThat(health.statusCode()).isEqualTo(200); // alive, starting: a liveness probe must not restart it

            // A second writer of the same namespace: its lock error at once, not after Kafka's 10 s.
            long secondStarted = System.nanoTime();
            try (WriterProcess second = startWriter("no-broker-second", bootstrap, store)) {
                assertThat(second.jvm.awaitExit())
                        .as("output: %s", second.jvm.lines())
                        .isEqualTo(2);
                assertThat(Duration.ofNanos(System.nanoTime() - secondStarted)).isLessThan(HTTP_WITHIN);
                assertThat(second.jvm.lines())
                        .anyMatch(l -> l.startsWith("error: Another writer owns namespace " + "'users'"));
                // Whatever the load: it failed before talking to Kafka (it used to wait for it first, and say so).
                assertThat(second.jvm.lines()).noneMatch(l -> l.contains(bootstrap));
            }

            // Kafka's client WARNs several times a second meanwhile; the writer says it once a period.
            writer.jvm.awaitLine(Duration.ofSeconds(30), l -> l.contains("has been unreachable for"));
            List<String> warnings = writer.jvm.lines(l -> l.contains(" WARN "));
            long periods = Duration.ofNanos(System.nanoTime() - started).toMillis() / PERIOD_MILLIS;
            assertThat(warnings)
                    .as("the client's own warnings are summarised: %s", warnings)
                    .noneMatch(l -> l.contains("NetworkClient") || l.contains("Node may not be available"));
            assertThat(warnings)
                    .filteredOn(l -> l.contains("is unreachable"))
                    .singleElement()
                    .asString()
                    .contains("Kafka at " + bootstrap + " is unreachable (Connection to node -1 (/" + bootstrap
                            + ") could not be established)")
                    .contains("once every " + PERIOD_MILLIS / 1000 + " s");
            assertThat(warnings)
                    .filteredOn(l -> l.contains("has been unreachable for"))
                    .isNotEmpty()
                    .allMatch(l -> l.matches(".*Kafka at " + bootstrap + " has been unreachable for \\d+ s.*"))
                    .hasSizeLessThanOrEqualTo((int) periods);
        }
    }
}
