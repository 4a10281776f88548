package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A record batch damaged in the broker's log (as by a bad disk: its checksum no longer matches) on a real broker.
 * The writer reads every topic with one consumer, which fails each poll until moved past the batch: one damaged
 * partition must not stop the others, nor the records after it.
 */
class DamagedPartitionTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    @Test
    void aDamagedBatchIsSkippedAndCountedWhileEveryTopicFlowsOn() throws Exception {
        kafka.createTopic("damaged", 1);
        kafka.createTopic("healthy", 1);
        for (int batch = 0; batch < 3; batch++) { // three batches of five records: offsets 0-4, 5-9, 10-14
            for (int i = 0; i < 5; i++) {
                kafka.send("damaged", "d" + batch + "-" + i, "v" + batch);
            }
            kafka.flush();
        }
        kafka.corruptBatch("damaged", 0, 1);
        for (int i = 0; i < 5; i++) {
            kafka.send("healthy", "h" + i, "v" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("damaged", "damaged"), new TopicBinding("healthy", "healthy")))
                .httpPort(0).build();
        Logger logger = (Logger) LoggerFactory.getLogger("io.sharedlookup.writer.ingest");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await("both namespaces ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
            assertThat(Http.get(app.httpPort(), "/lookup/healthy/h4").body()).isEqualTo("v4");
            assertThat(Http.get(app.httpPort(), "/lookup/damaged/d0-4").body()).isEqualTo("v0");
            assertThat(Http.get(app.httpPort(), "/lookup/damaged/d2-0").body()).isEqualTo("v2");
            assertThat(Http.get(app.httpPort(), "/lookup/damaged/d1-0").statusCode()).isEqualTo(404);
            assertThat(corruptRecords(app)).isEqualTo(5);
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);

            kafka.send("damaged", "d1-0", "written again");
            kafka.flush();
            await("a later record of the damaged partition").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> Http.get(app.httpPort(), "/lookup/damaged/d1-0").body().equals("written again"));
        } finally {
            logger.detachAppender(log);
        }
        assertThat(log.list).anyMatch(e -> e.getFormattedMessage().startsWith("Skipped offset 5 of damaged-0: the "
                + "broker's copy of its record batch is damaged"));

        // A clean restart resumes past the skipped offsets: nothing is skipped again, nothing is lost.
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await("ready again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
            assertThat(Http.metric(Http.get(app.httpPort(), "/metrics").body(),
                    "sharedlookup_writer_resumes_total{namespace=\"damaged\"}")).isEqualTo(1);
            assertThat(corruptRecords(app)).isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/damaged/d1-0").body()).isEqualTo("written again");
            assertThat(Http.get(app.httpPort(), "/lookup/damaged/d2-4").body()).isEqualTo("v2");
        }
    }

    private static double corruptRecords(WriterApp app) throws Exception {
        return Http.metric(Http.get(app.httpPort(), "/metrics").body(),
                "sharedlookup_writer_corrupt_records_total{namespace=\"damaged\"}");
    }
}
