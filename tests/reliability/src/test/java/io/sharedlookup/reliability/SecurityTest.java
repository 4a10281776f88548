package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.WriterMain;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Scenario g: file permissions, the HTTP surface, path traversal, SASL/PLAIN, and no phoning home. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SecurityTest {
    private static final long SEED = 0x67L;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private static int checks;

    @RegisterExtension
    static final Suite.FailedTests failed = new Suite.FailedTests();

    @AfterAll
    static void stop() {
        Suite.figures(
                "g-security",
                "security: permissions, HTTP surface, traversal, SASL/PLAIN, no analytics",
                SEED,
                checks,
                failed.count(),
                -1,
                -1,
                "each check asserted (see SecurityTest)");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void storePermissionsHttpSurfaceAndTraversal() throws Exception {
        String topic = "sec";
        broker.createTopic(topic, 1);
        broker.send(topic, "1", "alice");
        broker.flush();
        Path store = Stores.temp("sec-");
        try (WriterProcess w = Children.writer("g-writer", broker.bootstrap(), store, topic)) {
            w.awaitReady(Duration.ofSeconds(120));
            // Permissions: directories 0750, files 0640.
            Path nsDir = store.resolve(topic);
            assertThat(mode(nsDir)).isEqualTo("rwxr-x---");
            try (Stream<Path> files = Files.list(nsDir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (f.getFileName().toString().endsWith(".cmap")
                            || f.getFileName().toString().equals("manifest.properties")) {
                        assertThat(mode(f)).as(f.toString()).isEqualTo("rw-r-----");
                    }
                }
            }
            checks++;
            // Bound to loopback by default: not reachable through any other address of this host.
            List<InetAddress> others = new ArrayList<>();
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                        others.add(a);
                    }
                }
            }
            for (InetAddress a : others) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(a, w.port), 2000);
                    throw new AssertionError("HTTP reachable on " + a);
                } catch (ConnectException | java.net.SocketTimeoutException expected) {
                    // refused: good
                }
            }
            checks++;
            // Read-only: every other method is 405 with Allow: GET, HEAD, and nothing changes.
            for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
                for (String path : List.of("/lookup/" + topic + "/1", "/namespaces", "/ready", "/metrics")) {
                    var r = w.send(method, path);
                    assertThat(r.statusCode()).as(method + " " + path).isEqualTo(405);
                    assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
                }
            }
            assertThat(w.get("/lookup/" + topic + "/1").body()).isEqualTo("alice");
            assertThat(Stores.dump(store, topic)).isEqualTo(Map.of("1", "alice"));
            checks++;
            // No path traversal: namespace names are validated, keys are keys, never paths.
            for (String path : List.of(
                    "/lookup/..%2F..%2Fetc/passwd",
                    "/lookup/%2e%2e/passwd",
                    "/lookup/..%2F..%2F..%2Fetc%2Fpasswd/x",
                    "/lookup/" + topic + "/..%2F..%2F..%2Fetc%2Fpasswd",
                    "/lookup/" + topic + "/%2e%2e%2fmanifest.properties",
                    "/lookup/%2E%2E/" + topic,
                    "/../../etc/passwd",
                    "/lookup/" + topic + "%00/1",
                    "/lookup/" + topic + "/%ZZ")) {
                WriterProcess.Raw r = w.rawGet(path);
                assertThat(r.status()).as(path).isIn(400, 404);
                assertThat(r.body()).as(path).doesNotContain("root:").doesNotContain("format.version");
            }
            checks++;
        }
        // A namespace name that would leave the store directory is refused at start.
        for (String binding : List.of(topic + "=..", topic + "=../x", topic + "=a/b")) {
            ChildJvm bad = Children.start(
                    "g-bad-namespace",
                    WriterMain.class,
                    "--bootstrap-servers",
                    broker.bootstrap(),
                    "--store-dir",
                    store.toString(),
                    "--topic",
                    binding);
            try {
                assertThat(bad.waitFor()).as(binding).isEqualTo(2);
                assertThat(bad.lines()).anyMatch(l -> l.contains("Invalid namespace"));
            } finally {
                Children.close(bad);
            }
        }
        try (Stream<Path> entries = Files.list(store.getParent())) {
            assertThat(entries.map(p -> p.getFileName().toString())).doesNotContain("x", "a");
        }
        checks++;
    }

    @Test
    void writerReachesASaslPlainBrokerThroughKafkaProperties() throws Exception {
        try (SaslBroker sasl = new SaslBroker()) {
            Map<String, Object> client = new HashMap<>(sasl.clientSettings());
            try (Admin admin = Admin.create(client)) {
                admin.createTopics(List.of(new NewTopic("secure", Optional.of(1), Optional.empty())))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
            client.put("key.serializer", StringSerializer.class.getName());
            client.put("value.serializer", StringSerializer.class.getName());
            try (KafkaProducer<String, String> p = new KafkaProducer<>(client)) {
                p.send(new ProducerRecord<>("secure", "42", "douglas")).get(60, TimeUnit.SECONDS);
            }
            Path store = Stores.temp("sasl-");
            try (WriterProcess w = Children.writer(
                    "g-sasl-writer",
                    sasl.bootstrap(),
                    store,
                    "secure",
                    "--kafka-property",
                    "security.protocol=SASL_PLAINTEXT",
                    "--kafka-property",
                    "sasl.mechanism=PLAIN",
                    "--kafka-property",
                    "sasl.jaas.config=" + SaslBroker.WRITER_JAAS)) {
                w.awaitReady(Duration.ofSeconds(120));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> "douglas".equals(w.get("/lookup/secure/42").body()));
            }
            // Without credentials the same broker is not usable: the writer runs, answers, and never becomes ready
            // (a writer that died or never listened would also never be ready, so /ready must answer 503 throughout).
            Path store2 = Stores.temp("sasl-none-");
            try (WriterProcess w = Children.writer("g-plain-writer", sasl.bootstrap(), store2, "secure")) {
                w.jvm.awaitUp("listening", Duration.ofSeconds(60), Duration.ofMillis(50), () -> {
                    try {
                        return w.get("/ready").statusCode() > 0;
                    } catch (Exception notYet) {
                        return false;
                    }
                });
                await().during(Duration.ofSeconds(8))
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> w.jvm.isAlive() && w.get("/ready").statusCode() == 503);
                assertThat(w.get("/ready").body())
                        .as("why not ready")
                        .contains("secure")
                        .contains("Kafka");
            }
            checks++;
        }
    }

    @Test
    void chronicleAnalyticsIsNowhereAtRunTime() throws Exception {
        // reader-lib's (and the writer's) dependency tree, as resolved on this module's class path.
        assertThat(System.getProperty("java.class.path"))
                .contains("chronicle-map")
                .doesNotContain("chronicle-analytics");
        assertThat(classLoadable("net.openhft.chronicle.analytics.Analytics")).isFalse();
        // The writer's executable jar.
        Path jar = Suite.ROOT.resolve("writer/target/shared-lookup-writer.jar");
        Assumptions.assumeTrue(Files.exists(jar), "build the writer jar first: " + jar);
        try (JarFile j = new JarFile(jar.toFile())) {
            assertThat(j.stream()
                            .map(e -> e.getName())
                            .filter(n -> n.contains("chronicle/analytics") || n.contains("chronicle-analytics")))
                    .isEmpty();
            assertThat(j.getEntry("net/openhft/chronicle/map/ChronicleMap.class"))
                    .isNotNull();
        }
        checks++;
        // The Druid extension folder.
        Path folder = Suite.ROOT.resolve("druid-extension/target/druid-shared-lookup");
        Assumptions.assumeTrue(Files.isDirectory(folder), "build the Druid extension first: " + folder);
        try (Stream<Path> files = Files.list(folder)) {
            List<String> names = files.map(f -> f.getFileName().toString()).toList();
            // The extension jar and reader-lib only: no Chronicle at all in a reader, so nothing that could phone home.
            assertThat(names).hasSize(2).noneMatch(n -> n.contains("chronicle") || n.contains("analytics"));
        }
        checks++;
    }

    private static boolean classLoadable(String name) {
        try {
            Class.forName(name, false, SecurityTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
