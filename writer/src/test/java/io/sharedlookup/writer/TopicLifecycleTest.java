package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.ingest.Ingestor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue #39 items 2, 6 and 7, against a real broker: a topic deleted under a running writer, one deleted and recreated
 * while the writer is not fetching, and records held behind an open transaction.
 */
class TopicLifecycleTest {
    private static final Logger log = LoggerFactory.getLogger(TopicLifecycleTest.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path LOGS = Path.of("target", "child-logs");

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static WriterApp start(WriterConfig.Builder config) throws Exception {
        return WriterApp.start(config.httpPort(0).build(), new PrintStream(new ByteArrayOutputStream()));
    }

    private static void awaitReady(int port) {
        await("writer ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(port, "/ready").statusCode() == 200);
    }

    private static JsonNode notReady(int port) throws Exception {
        return JSON.readTree(Http.get(port, "/ready").body()).path("notReady");
    }

    private static JsonNode namespace(int port, String namespace) throws Exception {
        return JSON.readTree(Http.get(port, "/namespaces").body()).get(namespace);
    }

    private static String lookup(int port, String namespace, String key) throws Exception {
        var answer = Http.get(port, "/lookup/" + namespace + "/" + key);
        return answer.statusCode() == 200 ? answer.body() : null;
    }

    /**
     * Item 6: with two topics followed and one deleted, only the deleted topic's namespace is unready (saying the
     * topic is missing), while the other stays ready, its updates arrive promptly (the ingest thread is not held
     * seconds per check) and its positions go on being credited as current ({@code updated.at} moves).
     */
    @Test
    void aDeletedTopicMakesOnlyItsOwnNamespaceUnready() throws Exception {
        kafka.createTopic("alive", 1);
        kafka.createTopic("doomed", 1);
        kafka.send("alive", 0, "a0", "v0");
        kafka.send("doomed", 0, "d0", "v0");
        kafka.flush();
        Path store = TestKafka.tempStore();
        try (WriterApp app = start(WriterConfig.builder(kafka.bootstrap(), store)
                .topics(List.of(new TopicBinding("alive", "alive"), new TopicBinding("doomed", "doomed"))))) {
            int port = app.httpPort();
            awaitReady(port);
            kafka.deleteTopic("doomed");

            await("only the deleted topic's namespace unready, saying why")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        JsonNode why = notReady(port);
                        return why.has("doomed")
                                && why.get("doomed").asText().contains("does not exist")
                                && !why.has("alive");
                    });
            long noticed = System.currentTimeMillis();
            // Over more than two health checks (5 s apart), each update is visible well within one check's old
            // 3 s hold, and the healthy namespace stays ready throughout.
            long slowestMillis = 0;
            for (int i = 1; i <= 25; i++) {
                long sent = System.nanoTime();
                kafka.send("alive", 0, "a" + i, "v" + i);
                kafka.flush();
                String key = "a" + i;
                String value = "v" + i;
                await("update " + key + " visible")
                        .atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> value.equals(lookup(port, "alive", key)));
                slowestMillis = Math.max(slowestMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
                assertThat(notReady(port).has("alive"))
                        .as("alive unready: %s", notReady(port))
                        .isFalse();
                Thread.sleep(400); // pacing the producer, not synchronisation
            }
            log.info(
                    "FIGURE deleted topic: slowest of 25 updates of the healthy topic visible after {} ms",
                    slowestMillis);
            // The point: the ingest thread is not held 3 s of every 5 (an update then waited over 3 s). One health
            // check now holds it at most the topic look's 0.5 s wait plus the end offsets' 1.2 s budget
            // (EndsRefresh.CHECK_BUDGET), and an update is published within a 250 ms checkpoint after its poll:
            // 2.5 s leaves room for a loaded 2-core machine and still fails a 3 s hold.
            assertThat(slowestMillis)
                    .as("slowest update of the healthy topic, ms")
                    .isLessThan(2_500);
            await("the healthy topic's updated.at moves past the deletion")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Manifest.read(new StoreLayout(store).manifest("alive"))
                                    .updatedAtMillis()
                            > noticed);
            assertThat(notReady(port).get("doomed").asText()).contains("'doomed'");
        }
    }

    /**
     * Item 2: a topic deleted, recreated and refilled past the writer's position while the writer is frozen
     * (SIGSTOP): once it runs again, the changed topic id rebuilds the namespace, so the old topic's keys go and the
     * new topic's first records arrive.
     */
    @Test
    void aTopicRecreatedWhileTheWriterIsFrozenIsRebuilt() throws Exception {
        String topic = "reborn";
        kafka.createTopic(topic, 1);
        for (int i = 0; i < 5; i++) {
            kafka.send(topic, 0, "old" + i, "old");
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        // A health check every second: the health check is what sees the topic's new id (5 s apart in production).
        List<String> jvmOptions = new ArrayList<>(ChildJvm.chronicleFlags());
        jvmOptions.add("-D" + Ingestor.HEALTH_PERIOD_PROPERTY + "=1000");
        try (WriterProcess writer = WriterProcess.start(
                args -> ChildJvm.start("reborn-writer", LOGS, jvmOptions, WriterMain.class, args),
                kafka.bootstrap(),
                store,
                topic)) {
            writer.awaitReady(Duration.ofSeconds(90));
            await("old keys served")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> "old".equals(writer.lookup(topic, "old4")));
            signal("STOP", writer.jvm.pid());
            try {
                kafka.deleteTopic(topic);
                kafka.createTopic(topic, 1);
                for (int i = 0; i < 10; i++) {
                    kafka.send(topic, 0, "new" + i, "new");
                }
                kafka.flush();
            } finally {
                signal("CONT", writer.jvm.pid());
            }
            long resumed = System.nanoTime();
            await("the recreated topic's keys served, the old topic's gone")
                    .atMost(Duration.ofSeconds(40))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> "new".equals(writer.lookup(topic, "new0")) && writer.lookup(topic, "old0") == null);
            log.info(
                    "FIGURE recreated topic: new keys served, old gone {} ms after SIGCONT",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed));
            assertThat(writer.jvm.lines()).anyMatch(l -> l.contains("WARN") && l.contains("topic id"));
        }
    }

    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
    }

    /**
     * Item 7: records behind an open transaction count as lag, and a partition held at the last stable offset past
     * {@code --stuck-after} is reported stuck, naming the open transaction; once it commits, all clears.
     */
    @Test
    void recordsBehindAnOpenTransactionAreLagAndAHeldPartitionIsStuck() throws Exception {
        String topic = "held";
        kafka.createTopic(topic, 1);
        kafka.send(topic, 0, "k0", "v0");
        kafka.flush();
        Path store = TestKafka.tempStore();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "lifecycle-open-tx");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        // A health check every second: only a health check tells the partition stuck (5 s apart in production). The
        // writer reads the property when it makes its Ingestor, in start(), so it is cleared again right after.
        System.setProperty(Ingestor.HEALTH_PERIOD_PROPERTY, "1000");
        WriterApp started;
        try {
            started = start(WriterConfig.builder(kafka.bootstrap(), store)
                    .topics(List.of(new TopicBinding(topic, topic)))
                    .stuckAfterSeconds(2));
        } finally {
            System.clearProperty(Ingestor.HEALTH_PERIOD_PROPERTY);
        }
        try (WriterApp app = started;
                KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            int port = app.httpPort();
            awaitReady(port);
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 1; i <= 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
            }
            producer.flush();
            long sent = System.nanoTime();

            await("records behind the open transaction counted as lag")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> namespace(port, topic).get("lag").get("0").asLong() >= 3);
            await("held partition reported stuck, naming the transaction")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        String why = notReady(port).path(topic).asText();
                        return why.contains("stuck") && why.contains("open transaction") && why.contains("producer id");
                    });
            log.info(
                    "FIGURE open transaction: /ready says stuck naming it {} ms after its records were sent "
                            + "(--stuck-after 2)",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
            assertThat(lookup(port, topic, "k1")).isNull();

            producer.commitTransaction();
            awaitReady(port);
            await("committed records visible")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> "v3".equals(lookup(port, topic, "k3")));
            await("no lag")
                    .atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> namespace(port, topic).get("lag").get("0").asLong() == 0);
        }
    }
}
