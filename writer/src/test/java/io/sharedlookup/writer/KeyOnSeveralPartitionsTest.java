package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A key produced to two partitions (a changed partitioner), on a real broker: counted and logged, not silent. */
class KeyOnSeveralPartitionsTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    @Test
    void aKeyProducedToTwoPartitionsIsCountedAndNamedInAWarning() throws Exception {
        kafka.createTopic("moved", 2);
        kafka.createTopic("clean", 2);
        kafka.send("clean", 0, "user-7", "a");
        kafka.send("clean", 1, "user-9", "b");
        kafka.send("moved", 0, "user-7", "old");
        kafka.send("moved", 0, "user-8", "only here");
        kafka.send("moved", 1, "user-7", "new");
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding("moved", "moved"), new TopicBinding("clean", "clean")))
                .httpPort(0)
                .build();
        try (CapturedLog log = CapturedLog.named("io.sharedlookup.writer.ingest.KeyPartitions");
                WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            String metric = "sharedlookup_writer_keys_on_several_partitions_total{namespace=\"moved\"}";
            await("writer ready")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
            String metrics = Http.get(app.httpPort(), "/metrics").body();
            assertThat(Http.metric(metrics, metric)).isEqualTo(1);
            assertThat(metrics)
                    .as("registered zero-valued for a namespace without such keys")
                    .contains("sharedlookup_writer_keys_on_several_partitions_total{namespace=\"clean\"} 0.0");
            assertThat(Http.get(app.httpPort(), "/lookup/moved/user-8").body()).isEqualTo("only here");
            assertThat(log.warnings())
                    .singleElement()
                    .asString()
                    .contains("'user-7'", "'moved'", "partition 1 (offset 0)", "partition 0 (offset 0)");
        }
    }
}
