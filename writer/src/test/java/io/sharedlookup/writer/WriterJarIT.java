package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executable jar, run as an operator runs it: plain {@code java -jar} (no flags: they must come from the
 * manifest) against a real broker, lookups resolving over HTTP, SIGTERM ending it cleanly; and what is not in it: no
 * Kafka server, no Scala (the broker and the demo live in the demo jar, whose DemoJarIT runs the README's command).
 */
class WriterJarIT {
    @TempDir
    Path tmp;

    private static Path writerJar() {
        return Path.of(System.getProperty("sharedlookup.test.writerJar"));
    }

    @Test
    void servesLookupsFromThePlainJar() throws Exception {
        int port = Ports.freePort();
        try (TestKafka kafka = TestKafka.started()) {
            kafka.createTopic("users", 3);
            for (int id = 1; id <= 100; id++) {
                kafka.send("users", Integer.toString(id), "user " + id);
            }
            kafka.flush();
            try (ChildJvm writer = ChildJvm.startJar(
                    "writer-jar-it",
                    Path.of("target"),
                    writerJar(),
                    "--bootstrap-servers",
                    kafka.bootstrap(),
                    "--topic",
                    "users",
                    "--store-dir",
                    tmp.resolve("store").toString(),
                    "--http-port",
                    Integer.toString(port))) {
                writer.awaitServing(port, "/ready", "/lookup/users/42");
                assertThat(writer.lines()).anyMatch(l -> l.contains("HTTP http://127.0.0.1:" + port));
                assertThat(Http.get(port, "/lookup/users/42").body()).isEqualTo("user 42");
                // A change produced now reaches the store.
                kafka.send("users", "42", "renamed");
                kafka.flush();
                await("the change arrives")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> Http.get(port, "/lookup/users/42").body().equals("renamed"));
                writer.assertStopsWithinTenSecondsOfSigterm();
                writer.assertNoWarningOrErrorFrom(l -> l.endsWith(" - Stopping"));
                assertThat(Files.readString(tmp.resolve("store/users/manifest.properties")))
                        .contains("writer.state=closed");
            }
        }
    }

    /** The production jar carries the Kafka client only: the broker (kafka_2.13, Scala) is the demo jar's. */
    @Test
    void carriesNoKafkaServerAndNoScala() throws Exception {
        Path jar = writerJar();
        List<String> entries;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            entries = zip.stream().map(java.util.zip.ZipEntry::getName).toList();
        }
        assertThat(entries)
                .as("the writer's own classes and the Kafka client are in")
                .contains(
                        "io/sharedlookup/writer/WriterMain.class",
                        "org/apache/kafka/clients/consumer/KafkaConsumer.class");
        assertThat(entries)
                .as("no Kafka server, no Scala, nothing of the demo")
                .noneMatch(e -> e.startsWith("kafka/server/")
                        || e.startsWith("scala/")
                        || e.startsWith("org/apache/kafka/raft/")
                        || e.startsWith("org/apache/kafka/controller/")
                        || e.startsWith("io/sharedlookup/demo/"));
    }

    @Test
    void embeddedKafkaPointsToTheDemoJar() throws Exception {
        ChildJvm p = ChildJvm.startJar("out", tmp, writerJar(), "--embedded-kafka", "--store-dir", tmp.toString());
        assertThat(p.awaitExit()).isEqualTo(2);
        assertThat(p.lines()).singleElement().asString().startsWith("error: ").contains("shared-lookup-demo.jar");
    }

    @Test
    void badOptionExitsWithOneLine() throws Exception {
        ChildJvm p = ChildJvm.startJar("out", tmp, writerJar(), "--bogus");
        assertThat(p.awaitExit()).isEqualTo(2);
        assertThat(p.lines()).hasSize(1);
        assertThat(p.lines().get(0)).startsWith("error: Unknown option");
    }
}
