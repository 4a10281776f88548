package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue #13 item 3: an operator raises a topic's partition count under a running writer
 * ({@code kafka-topics --alter --partitions 3}) and producers start writing to the new partitions. Their records must
 * reach readers, the offsets stored with the generation must cover them, and the writer must not claim to be ready
 * while it knows of a partition it has not caught up with.
 */
class PartitionsAddedTest {
    private static final Logger log = LoggerFactory.getLogger(PartitionsAddedTest.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Partitions added are noticed within the consumer's metadata refresh (5 s), then read from their beginning. */
    private static final Duration VISIBLE_WITHIN = Duration.ofSeconds(30);

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    @Test
    void recordsOnPartitionsAddedWhileRunningReachReadersAndTheManifest() throws Exception {
        String topic = "grown";
        kafka.createTopic(topic, 1);
        Map<String, String> expected = new LinkedHashMap<>();
        for (int i = 0; i < 200; i++) {
            kafka.send(topic, 0, "old-" + i, "v" + i);
            expected.put("old-" + i, "v" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding(topic, topic)))
                .httpPort(0)
                .build();
        try (WriterApp app = WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
                SharedLookupStore readers = SharedLookupStore.open(store)) {
            int port = app.httpPort();
            await("writer ready")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/ready").statusCode() == 200);

            kafka.increasePartitions(topic, 3);
            long raised = System.nanoTime();
            int perNewPartition = 4000;
            for (int i = 0; i < perNewPartition; i++) {
                for (int p = 1; p <= 2; p++) {
                    kafka.send(topic, p, "p" + p + "-" + i, "w" + i);
                    expected.put("p" + p + "-" + i, "w" + i);
                }
            }
            for (int i = 0; i < 10; i++) {
                kafka.send(topic, 0, "late-" + i, "l" + i);
                expected.put("late-" + i, "l" + i);
            }
            kafka.flush();
            // Readiness can only be checked against "everything produced" if the writer noticed the new partitions
            // after the producer finished; otherwise it rightly caught up with the end offsets it saw then.
            boolean readinessCheckable = !namespace(port, topic).get("lag").has("2");

            Lookup lookup = readers.lookup(topic);
            AtomicInteger readySnapshotsWithNewPartitions = new AtomicInteger();
            await("records on the added partitions visible to readers")
                    .atMost(VISIBLE_WITHIN)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        JsonNode ns = namespace(port, topic);
                        long missing = missing(lookup, expected);
                        if (readinessCheckable
                                && ns.get("lag").has("2")
                                && ns.get("ready").asBoolean()) {
                            readySnapshotsWithNewPartitions.incrementAndGet();
                            assertThat(missing)
                                    .as("keys not visible while /namespaces said ready with partitions "
                                            + ns.get("lag"))
                                    .isZero();
                        }
                        return missing == 0;
                    });
            log.info(
                    "Records on partitions added under the running writer visible to readers {} ms after the "
                            + "partitions were added ({} records on the new partitions; readiness checked: {}, {} ready "
                            + "snapshots)",
                    (System.nanoTime() - raised) / 1_000_000,
                    2 * perNewPartition,
                    readinessCheckable,
                    readySnapshotsWithNewPartitions.get());

            Map<Integer, Long> ends = Map.of(0, 210L, 1, (long) perNewPartition, 2, (long) perNewPartition);
            await("manifest offsets cover the added partitions")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> manifestOffsets(store, topic), offsets -> offsets.equals(ends));
            await("ready again")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/ready").statusCode() == 200);
            JsonNode lag = namespace(port, topic).get("lag");
            assertThat(lag.size()).as("lag per partition: " + lag).isEqualTo(3);
            String metrics = Http.get(port, "/metrics").body();
            for (int p = 0; p < 3; p++) {
                assertThat(metrics)
                        .contains(
                                "sharedlookup_writer_lag_records{namespace=\"" + topic + "\",partition=\"" + p + "\"}");
            }
        }
        assertThat(manifestOffsets(store, topic))
                .as("offsets after a clean stop")
                .containsOnlyKeys(0, 1, 2)
                .containsEntry(1, 4000L)
                .containsEntry(2, 4000L);
    }

    private static long missing(Lookup lookup, Map<String, String> expected) {
        return expected.entrySet().stream()
                .filter(e -> !e.getValue().equals(lookup.get(e.getKey())))
                .count();
    }

    private static JsonNode namespace(int port, String namespace) throws Exception {
        return JSON.readTree(Http.get(port, "/namespaces").body()).get(namespace);
    }

    private static Map<Integer, Long> manifestOffsets(Path store, String namespace) throws Exception {
        return Manifest.read(new StoreLayout(store).manifest(namespace)).offsets();
    }
}
