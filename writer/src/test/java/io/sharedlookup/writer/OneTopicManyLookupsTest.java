package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 40 item 5, against a real broker and the real writer: one topic of JSON documents read once into three
 * namespaces, each storing its own field. Each namespace must equal what an independent consumer of the topic computes
 * for its field (latest value per key, tombstones removing, a document without the field skipped for that namespace
 * only), as a reader (SharedLookupStore) sees it; the records a namespace skipped are in its skipped-records list and
 * only in its.
 */
class OneTopicManyLookupsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Namespace to the dotted field it stores ("" for the whole value). */
    private static final Map<String, String> FIELDS = new LinkedHashMap<>();

    static {
        FIELDS.put("users_name", "name.display");
        FIELDS.put("users_country", "address.country");
        FIELDS.put("users_tier", "tier");
    }

    private static final Path LOGS = Path.of("target", "child-logs");

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    @Test
    void oneTopicFeedsThreeLookupsEachWithItsField() throws Exception {
        kafka.createTopic("users", 2);
        for (int i = 0; i < 40; i++) {
            kafka.send("users", "u" + i, doc("Name " + i, "C" + (i % 7), i % 3));
        }
        kafka.send("users", "u5", null); // tombstone: gone from all three
        kafka.send("users", "u6", "{\"name\":{\"display\":\"Six again\"},\"tier\":9}"); // no country: that one keeps C6
        kafka.send("users", "u40", "{\"address\":{\"country\":\"FR\"},\"tier\":1}"); // no name: absent there only
        kafka.send("users", "u7", doc("Seven again", "DE", 2));
        kafka.flush();

        Path store = TestKafka.tempStore();
        List<String> args = new ArrayList<>(
                List.of("--bootstrap-servers", kafka.bootstrap(), "--store-dir", store.toString(), "--http-port", "0"));
        FIELDS.forEach((ns, field) -> args.addAll(List.of("--lookup", ns + "=users:" + field)));
        try (CapturedLog log = CapturedLog.named("io.sharedlookup.writer.ingest.BatchApplier");
                WriterApp app = start(args)) {
            awaitReady(app);
            Expected expected = Expected.consume();
            try (SharedLookupStore reader = SharedLookupStore.open(store)) {
                for (String ns : FIELDS.keySet()) {
                    assertThat(contents(reader.lookup(ns))).as(ns).isEqualTo(expected.values.get(ns));
                }
                assertThat(reader.lookup("users_country").get("u6")).isEqualTo("C6");
                assertThat(reader.lookup("users_name").get("u6")).isEqualTo("Six again");
                assertThat(reader.lookup("users_name").get("u40")).isNull();
                assertThat(reader.lookup("users_country").get("u40")).isEqualTo("FR");
                for (String ns : FIELDS.keySet()) {
                    assertThat(reader.lookup(ns).get("u5")).as(ns).isNull();
                }

                // Live: tombstones delete from all three, a document without one field skips only that one.
                kafka.send("users", "u1", null);
                kafka.send("users", "u2", null);
                kafka.send("users", "u3", "{\"name\":{\"display\":\"Three\"},\"address\":{\"country\":\"IT\"}}");
                kafka.send("users", "u41", doc("Forty-one", "NL", 0));
                kafka.flush();
                Expected later = Expected.consume();
                await("every namespace at the topic's latest value of its field")
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(100))
                        .untilAsserted(() -> {
                            for (String ns : FIELDS.keySet()) {
                                assertThat(contents(reader.lookup(ns))).as(ns).isEqualTo(later.values.get(ns));
                            }
                        });
                assertThat(reader.lookup("users_tier").get("u3")).isEqualTo("0"); // u3's tier as first written

                JsonNode namespaces =
                        JSON.readTree(Http.get(app.httpPort(), "/namespaces").body());
                for (String ns : FIELDS.keySet()) {
                    Set<String> skipped = new HashSet<>();
                    namespaces.get(ns).get("skippedRecords").forEach(s -> {
                        assertThat(s.get("reason").asText()).as(ns).contains("has no field '" + FIELDS.get(ns) + "'");
                        skipped.add(s.get("partition").asInt() + ":"
                                + s.get("offset").asLong());
                    });
                    assertThat(skipped).as(ns + " skipped").isEqualTo(later.skipped.get(ns));
                    assertThat(namespaces.get(ns).get("topic").asText()).isEqualTo("users");
                }
                assertThat(later.skipped.get("users_country")).hasSize(1);
                assertThat(later.skipped.get("users_tier")).hasSize(1);
                String metrics = Http.get(app.httpPort(), "/metrics").body();
                for (String ns : FIELDS.keySet()) {
                    assertThat(Http.metric(
                                    metrics, "sharedlookup_writer_decode_errors_total{namespace=\"" + ns + "\"}"))
                            .as(ns)
                            .isEqualTo(later.skipped.get(ns).size());
                    assertThat(Http.metric(metrics, "sharedlookup_writer_tombstones_total{namespace=\"" + ns + "\"}"))
                            .as(ns)
                            .isEqualTo(3);
                }
                // The first skip is logged at once (the rate limit holds back the next ones), naming the namespace.
                assertThat(log.warnings())
                        .anySatisfy(
                                w -> assertThat(w)
                                        .matches(
                                                "Skipped a record that cannot be "
                                                        + "decoded at users-[01] offset \\d+: value has no field '[a-z.]+' \\(for namespace "
                                                        + "'users_[a-z]+'; the topic's other namespaces take it when it has their field\\)"));
            }
        }

        // A fourth lookup of the topic joins at restart: it is built from the beginning, and the three that could
        // resume are read again with it (one position per partition); all four end at the topic's latest values.
        args.addAll(List.of("--lookup", "users_all=users"));
        try (WriterApp app = start(args)) {
            awaitReady(app);
            Expected expected = Expected.consume();
            try (SharedLookupStore reader = SharedLookupStore.open(store)) {
                for (String ns : FIELDS.keySet()) {
                    assertThat(contents(reader.lookup(ns))).as(ns).isEqualTo(expected.values.get(ns));
                }
                assertThat(contents(reader.lookup("users_all"))).isEqualTo(kafka.latest("users"));
            }
        }
    }

    /**
     * In a writer process of its own: a topic deleted and created again under the running writer rebuilds every
     * namespace it feeds, each from the new topic with its own field; a reader then resolves the new keys in all
     * three and none of the old.
     */
    @Test
    void aRecreatedTopicRebuildsEveryNamespaceOfIt() throws Exception {
        kafka.createTopic("people", 1);
        kafka.createTopic("plain", 1);
        kafka.send("people", "old", "{\"name\":\"Old\",\"city\":\"Oldtown\"}");
        kafka.flush();
        Path store = TestKafka.tempStore();
        try (WriterProcess writer = WriterProcess.start(
                args -> ChildJvm.start("lookups-writer", LOGS, WriterMain.class, args),
                kafka.bootstrap(),
                store,
                "plain",
                "--lookup",
                "people_name=people:name",
                "--lookup",
                "people_city=people:city",
                "--lookup",
                "people_all=people")) {
            writer.awaitReady(Duration.ofSeconds(90));
            assertThat(writer.lookup("people_name", "old")).isEqualTo("Old");
            assertThat(writer.lookup("people_city", "old")).isEqualTo("Oldtown");

            kafka.deleteTopic("people");
            kafka.createTopic("people", 1);
            kafka.send("people", "new", "{\"name\":\"New\",\"city\":\"Newport\"}");
            kafka.flush();
            Map<String, Map<String, String>> rebuilt = Map.of(
                    "people_name",
                    Map.of("new", "New"),
                    "people_city",
                    Map.of("new", "Newport"),
                    "people_all",
                    Map.of("new", "{\"name\":\"New\",\"city\":\"Newport\"}"));
            try (SharedLookupStore reader = SharedLookupStore.open(store)) {
                await("every namespace of the recreated topic rebuilt from it")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> rebuilt.forEach((ns, entries) ->
                                assertThat(contents(reader.lookup(ns))).as(ns).isEqualTo(entries)));
            }
            for (String ns : rebuilt.keySet()) {
                assertThat(writer.metric("sharedlookup_writer_rebuilds_total{namespace=\"" + ns + "\"}"))
                        .as(ns)
                        .isGreaterThanOrEqualTo(2);
            }
        }
    }

    private static String doc(String name, String country, int tier) {
        return "{\"id\":1,\"name\":{\"display\":\"" + name + "\"},\"address\":{\"country\":\"" + country
                + "\"},\"tier\":" + tier + "}";
    }

    private static WriterApp start(List<String> args) throws Exception {
        WriterConfig config = (WriterConfig)
                WriterMain.parse(args.toArray(String[]::new), Map.of(), new PrintStream(new ByteArrayOutputStream()));
        return WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
    }

    private static void awaitReady(WriterApp app) {
        await("writer ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
    }

    private static Map<String, String> contents(Lookup lookup) {
        Map<String, String> out = new HashMap<>();
        lookup.forEach(out::put);
        return out;
    }

    /** Per namespace, its field's latest value per key and the records without the field, by a consumer of its own. */
    private record Expected(Map<String, Map<String, String>> values, Map<String, Set<String>> skipped) {
        static Expected consume() {
            Map<String, Map<String, String>> values = new HashMap<>();
            Map<String, Set<String>> skipped = new HashMap<>();
            FIELDS.keySet().forEach(ns -> {
                values.put(ns, new HashMap<>());
                skipped.put(ns, new HashSet<>());
            });
            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrap());
            p.put("key.deserializer", ByteArrayDeserializer.class.getName());
            p.put("value.deserializer", ByteArrayDeserializer.class.getName());
            p.put("enable.auto.commit", "false");
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
                List<TopicPartition> tps = new ArrayList<>();
                for (PartitionInfo pi : c.partitionsFor("users", Duration.ofSeconds(30))) {
                    tps.add(new TopicPartition("users", pi.partition()));
                }
                c.assign(tps);
                c.seekToBeginning(tps);
                Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
                while (tps.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                        String key = new String(r.key(), StandardCharsets.UTF_8);
                        FIELDS.forEach((ns, field) -> {
                            if (r.value() == null) {
                                values.get(ns).remove(key);
                                return;
                            }
                            JsonNode node = tree(r.value());
                            for (String name : field.split("\\.")) {
                                node = node.path(name);
                            }
                            if (node.isMissingNode()) {
                                skipped.get(ns).add(r.partition() + ":" + r.offset());
                            } else {
                                values.get(ns).put(key, node.asText());
                            }
                        });
                    }
                }
            }
            return new Expected(values, skipped);
        }

        private static JsonNode tree(byte[] value) {
            try {
                return JSON.readTree(value);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }
    }
}
