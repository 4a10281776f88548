package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Record batches damaged in the broker's log file (as by a bad disk), on a real broker. The writer reads every topic
 * with one consumer, which fails each poll until moved past the batch or paused: one damaged partition must stop
 * neither the other topics nor the records after it.
 */
class DamagedPartitionTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    /** Three batches of five records on each partition: offsets 0-4, 5-9, 10-14. */
    private static void threeBatches(String topic, int partition) {
        for (int batch = 0; batch < 3; batch++) {
            for (int i = 0; i < 5; i++) {
                kafka.send(topic, partition, "p" + partition + "-" + batch + "-" + i, "v" + batch);
            }
            kafka.flush();
        }
    }

    private static void fillHealthy(String topic) throws Exception {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 5; i++) {
            kafka.send(topic, "h" + i, "v" + i);
        }
        kafka.flush();
    }

    private static WriterApp start(List<TopicBinding> topics) throws Exception {
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(topics)
                .httpPort(0)
                .build();
        return WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
    }

    private static void awaitReady(WriterApp app) {
        await("ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
    }

    @Test
    void damagedBatchesAreSkippedAndCountedWhileEveryTopicFlowsOn() throws Exception {
        kafka.createTopic("damaged", 2);
        threeBatches("damaged", 0);
        threeBatches("damaged", 1);
        // Both partitions at once: each is fetched again and skipped on its own.
        kafka.corruptBatch("damaged", 0, 1);
        kafka.corruptBatch("damaged", 1, 1);
        fillHealthy("healthy");
        Logger logger = (Logger) LoggerFactory.getLogger("io.sharedlookup.writer.ingest");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        List<TopicBinding> topics =
                List.of(new TopicBinding("damaged", "damaged"), new TopicBinding("healthy", "healthy"));
        try (WriterApp app = start(topics)) {
            awaitReady(app);
            assertThat(Http.get(app.httpPort(), "/lookup/healthy/h4").body()).isEqualTo("v4");
            for (int p = 0; p < 2; p++) {
                assertThat(Http.get(app.httpPort(), "/lookup/damaged/p" + p + "-0-4")
                                .body())
                        .isEqualTo("v0");
                assertThat(Http.get(app.httpPort(), "/lookup/damaged/p" + p + "-2-0")
                                .body())
                        .isEqualTo("v2");
                assertThat(Http.get(app.httpPort(), "/lookup/damaged/p" + p + "-1-0")
                                .statusCode())
                        .isEqualTo(404);
            }
            assertThat(corruptRecords(app, "damaged")).isEqualTo(10);
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);

            kafka.send("damaged", 0, "p0-1-0", "written again");
            kafka.flush();
            await("a later record of a damaged partition")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> Http.get(app.httpPort(), "/lookup/damaged/p0-1-0")
                            .body()
                            .equals("written again"));
        } finally {
            logger.detachAppender(log);
        }
        assertThat(log.list)
                .anyMatch(e -> e.getFormattedMessage().startsWith("Skipped offset 5 of damaged-"))
                .anyMatch(e -> e.getFormattedMessage().contains("the record batch from offset 5 arrived damaged"));
        assertThat(log.list).as("fetched once more, not in a loop").hasSizeLessThan(100);
    }

    @Test
    void aCleanRestartResumesPastSkippedOffsets() throws Exception {
        kafka.createTopic("skipped", 1);
        threeBatches("skipped", 0);
        kafka.corruptBatch("skipped", 0, 1);
        List<TopicBinding> topics = List.of(new TopicBinding("skipped", "skipped"));
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(topics)
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            awaitReady(app);
            assertThat(corruptRecords(app, "skipped")).isEqualTo(5);
        }
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            awaitReady(app);
            assertThat(Http.metric(
                            Http.get(app.httpPort(), "/metrics").body(),
                            "sharedlookup_writer_resumes_total{namespace=\"skipped\"}"))
                    .isEqualTo(1);
            assertThat(corruptRecords(app, "skipped")).isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/skipped/p0-2-4").body())
                    .isEqualTo("v2");
        }
    }

    /**
     * A batch whose length field is damaged: the consumer finds the batch too short to be one, or the broker cannot
     * read its own log from there and answers CORRUPT_MESSAGE. Which one depends on the bytes the bad length points
     * into (here the records' timestamps). Neither is skipped: skipping could walk through the rest of the segment,
     * or past the batch to where the broker finds no next one and the partition stops silently (seen with this very
     * test before the fix). The topic pauses alone, saying what to repair.
     */
    @Test
    void aLogTheBrokerCannotReadPausesItsTopicAlone() throws Exception {
        kafka.createTopic("unreadable", 1);
        threeBatches("unreadable", 0);
        kafka.breakBatchLength("unreadable", 0, 1);
        fillHealthy("fine");
        try (WriterApp app =
                start(List.of(new TopicBinding("unreadable", "unreadable"), new TopicBinding("fine", "fine")))) {
            await("the topic paused, saying why")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").body().contains("repair the partition"));
            kafka.send("fine", "h9", "later");
            kafka.flush();
            await("the other topic flows on")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() ->
                            Http.get(app.httpPort(), "/lookup/fine/h9").body().equals("later"));
            assertThat(corruptRecords(app, "unreadable")).as("nothing skipped").isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/unreadable/p0-2-0").statusCode())
                    .isEqualTo(404);
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);
        }
    }

    /**
     * A batch length damaged to point past the log's end: the broker finds no batch from there and answers every fetch
     * with nothing, without an error, so the consumer neither fails nor moves. Nothing is skipped (where the next
     * batch starts is not known); the partition is reported stuck until it moves again. Damaged while the writer was
     * down, so that the restarted writer resumes right before it and serves what it had published.
     */
    @Test
    void aPartitionTheBrokerAnswersWithNothingIsReportedStuckUntilItMovesAgain() throws Exception {
        kafka.createTopic("silent", 1);
        fillHealthy("flowing");
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding("silent", "silent"), new TopicBinding("flowing", "flowing")))
                .httpPort(0)
                .stuckAfterSeconds(1)
                .build();
        for (int i = 0; i < 5; i++) {
            kafka.send("silent", 0, "p0-0-" + i, "v0");
        }
        kafka.flush();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            awaitReady(app);
        }
        for (int batch = 1; batch < 3; batch++) {
            for (int i = 0; i < 5; i++) {
                kafka.send("silent", 0, "p0-" + batch + "-" + i, "v" + batch);
            }
            kafka.flush();
        }
        int length = kafka.setBatchLength("silent", 0, 1, 1 << 30);
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await("the partition reported stuck")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready")
                            .body()
                            .contains("stuck: partition 0 has not moved past offset 5"));
            assertThat(Http.get(app.httpPort(), "/ready").statusCode()).isEqualTo(503);
            assertThat(stuckPartitions(app, "silent")).isEqualTo(1);
            assertThat(stuckPartitions(app, "flowing")).isZero();
            assertThat(corruptRecords(app, "silent")).as("nothing skipped").isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/silent/p0-0-4").body()).isEqualTo("v0");
            assertThat(Http.get(app.httpPort(), "/lookup/silent/p0-1-0").statusCode())
                    .isEqualTo(404);
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);

            kafka.setBatchLength("silent", 0, 1, length); // repaired
            awaitReady(app);
            assertThat(stuckPartitions(app, "silent")).isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/silent/p0-2-4").body()).isEqualTo("v2");
            assertThat(Http.get(app.httpPort(), "/lookup/silent/p0-1-0").body()).isEqualTo("v1");
        }
    }

    private static double stuckPartitions(WriterApp app, String namespace) throws Exception {
        return Http.metric(
                Http.get(app.httpPort(), "/metrics").body(),
                "sharedlookup_writer_stuck_partitions{namespace=\"" + namespace + "\"}");
    }

    private static double corruptRecords(WriterApp app, String namespace) throws Exception {
        return Http.metric(
                Http.get(app.httpPort(), "/metrics").body(),
                "sharedlookup_writer_corrupt_records_total{namespace=\"" + namespace + "\"}");
    }
}
