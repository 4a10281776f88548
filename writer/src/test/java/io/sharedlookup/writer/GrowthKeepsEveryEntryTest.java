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

/**
 * A growth copy against a real broker: the bigger generation is sized from running averages, which many small
 * updates pull down, yet it must take the largest value already stored. It used to drop it (404, one oversize skip,
 * nothing logged).
 */
class GrowthKeepsEveryEntryTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static String metrics(WriterApp app) throws Exception {
        return Http.get(app.httpPort(), "/metrics").body();
    }

    @Test
    void aGrowthAfterManySmallUpdatesKeepsALargeValueStoredBefore() throws Exception {
        kafka.createTopic("big", 1);
        String huge = "h".repeat(150_000); // well under the default --max-value-bytes (1 MiB)
        for (int i = 0; i < 999; i++) {
            kafka.send("big", "k" + i, "v".repeat(250));
        }
        kafka.send("big", "huge", huge);
        kafka.flush();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding("big", "big")))
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await("writer ready")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
            assertThat(Http.get(app.httpPort(), "/lookup/big/huge").body()).isEqualTo(huge);

            // Small updates pull the average value size down; then new keys fill the generation, so it grows.
            for (int i = 0; i < 6000; i++) {
                kafka.send("big", "k" + (i % 999), "s" + i);
            }
            for (int i = 0; i < 300; i++) {
                kafka.send("big", "new" + i, "n" + i);
            }
            kafka.flush();
            await("grown and caught up")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.metric(metrics(app), "sharedlookup_writer_growths_total{namespace=\"big\"}") >= 1
                            && Http.get(app.httpPort(), "/lookup/big/new299").statusCode() == 200);

            assertThat(Http.get(app.httpPort(), "/lookup/big/huge").body()).isEqualTo(huge);
            assertThat(Http.metric(metrics(app), "sharedlookup_writer_oversize_skips_total{namespace=\"big\"}"))
                    .isZero();
            assertThat(Http.get(app.httpPort(), "/lookup/big/k5").body()).isEqualTo("s5999");
        }
    }
}
