package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 40 item 3, against a real broker: every skipped record can be found by its offset, in /namespaces, in
 * {@code inspect} (another process's view: the file in the namespace directory) and in the log's summary of what the
 * rate limit left out.
 */
class SkippedRecordsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    @Test
    void threeBadJsonRecordsAreEachFoundByTheirOffset() throws Exception {
        kafka.createTopic("people", 1);
        kafka.send("people", "1", "{\"name\":\"Ada\"}");
        kafka.send("people", "2", "not json");
        kafka.send("people", "3", "{\"name\":");
        kafka.send("people", "4", "[1,");
        kafka.send("people", "5", "{\"name\":\"Grace\"}");
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("people", "people")))
                .httpPort(0)
                .valueField(Optional.of("name"))
                .build();
        try (CapturedLog log = CapturedLog.named("io.sharedlookup.writer.ingest.BatchApplier");
                WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()))) {
            await("writer ready")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);

            JsonNode skipped = JSON.readTree(
                            Http.get(app.httpPort(), "/namespaces").body())
                    .get("people")
                    .get("skippedRecords");
            List<Long> offsets = new ArrayList<>();
            skipped.forEach(s -> {
                assertThat(s.get("partition").asInt()).isZero();
                assertThat(s.get("reason").asText()).startsWith("cannot be decoded: ");
                assertThat(s.get("at").asText()).isNotBlank();
                offsets.add(s.get("offset").asLong());
            });
            assertThat(offsets).containsExactly(1L, 2L, 3L);

            // The rate limit logged the first; the other two are summarised without a further WARN to carry them.
            await("summary of the suppressed WARNs")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> log.warnings().size() >= 2);
            assertThat(log.warnings().get(0))
                    .startsWith("Skipped a record that cannot be decoded at people-0 offset 1: ");
            assertThat(log.warnings().get(1))
                    .startsWith("2 similar messages were suppressed (one is logged per 5 s); "
                            + "the last: Skipped a record that cannot be decoded at people-0 offset 3: ");

            // inspect runs in another process: it reads what the writer keeps in the namespace directory.
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int rc = WriterMain.run(
                    new String[] {"inspect", store.toString()},
                    Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream()));
            assertThat(rc).isZero();
            String inspected = out.toString(StandardCharsets.UTF_8);
            assertThat(inspected).contains("  skipped      the last 3 (partition, offset, time, reason):");
            for (long offset = 1; offset <= 3; offset++) {
                assertThat(inspected)
                        .containsPattern("\n    partition 0 offset " + offset + " at \\S+: cannot be " + "decoded: ");
            }
            assertThat(Http.get(app.httpPort(), "/lookup/people/5").body()).isEqualTo("Grace");
        }
    }
}
