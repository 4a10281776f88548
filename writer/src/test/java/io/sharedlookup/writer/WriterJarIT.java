package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> run(Process p) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                }
            } catch (java.io.IOException e) {
                // gone
            }
        });
        pump.setDaemon(true);
        pump.start();
        return lines;
    }

    @Test
    void servesLookupsFromThePlainJar() throws Exception {
        String jar = System.getProperty("sharedlookup.test.writerJar");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p;
        List<String> out;
        try (TestKafka kafka = new TestKafka()) {
            kafka.createTopic("users", 3);
            for (int id = 1; id <= 100; id++) {
                kafka.send("users", Integer.toString(id), "user " + id);
            }
            kafka.flush();
            p = new ProcessBuilder(java(), "-jar", jar, "--bootstrap-servers", kafka.bootstrap(), "--topic", "users",
                    "--store-dir", tmp.resolve("store").toString(), "--http-port", Integer.toString(port))
                    .redirectErrorStream(true).start();
            out = run(p);
            try {
                await("writer ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                        .until(() -> !p.isAlive() || readyAndResolving(port));
                assertThat(p.isAlive()).as("output: %s", out).isTrue();
                assertThat(out).anyMatch(l -> l.contains("HTTP http://127.0.0.1:" + port));
                assertThat(Http.get(port, "/lookup/users/42").body()).isEqualTo("user 42");
                // A change produced now reaches the store.
                kafka.send("users", "42", "renamed");
                kafka.flush();
                await("the change arrives").atMost(Duration.ofSeconds(30))
                        .until(() -> Http.get(port, "/lookup/users/42").body().equals("renamed"));
                p.destroy();
                assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("exits within 10 s of SIGTERM").isTrue();
                assertThat(Files.readString(tmp.resolve("store/users/manifest.properties")))
                        .contains("writer.state=closed");
            } finally {
                p.destroyForcibly();
                Files.write(Path.of("target", "writer-jar-it.log"), out);
            }
        }
    }

    /** The production jar carries the Kafka client only: the broker (kafka_2.13, Scala) is the demo jar's. */
    @Test
    void carriesNoKafkaServerAndNoScala() throws Exception {
        Path jar = Path.of(System.getProperty("sharedlookup.test.writerJar"));
        List<String> entries;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            entries = zip.stream().map(java.util.zip.ZipEntry::getName).toList();
        }
        assertThat(entries).as("the writer's own classes and the Kafka client are in")
                .contains("io/sharedlookup/writer/WriterMain.class",
                        "org/apache/kafka/clients/consumer/KafkaConsumer.class");
        assertThat(entries).as("no Kafka server, no Scala, nothing of the demo")
                .noneMatch(e -> e.startsWith("kafka/server/") || e.startsWith("scala/")
                        || e.startsWith("org/apache/kafka/raft/") || e.startsWith("org/apache/kafka/controller/")
                        || e.startsWith("io/sharedlookup/demo/"));
    }

    @Test
    void embeddedKafkaPointsToTheDemoJar() throws Exception {
        Process p = new ProcessBuilder(java(), "-jar", System.getProperty("sharedlookup.test.writerJar"),
                "--embedded-kafka", "--store-dir", tmp.toString()).redirectErrorStream(true).start();
        List<String> out = run(p);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> !out.isEmpty());
        assertThat(out).singleElement().asString().startsWith("error: ").contains("shared-lookup-demo.jar");
    }

    private static boolean readyAndResolving(int port) {
        try {
            return Http.get(port, "/ready").statusCode() == 200
                    && Http.get(port, "/lookup/users/42").statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void badOptionExitsWithOneLine() throws Exception {
        Process p = new ProcessBuilder(java(), "-jar", System.getProperty("sharedlookup.test.writerJar"), "--bogus")
                .redirectErrorStream(true).start();
        List<String> out = run(p);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> !out.isEmpty());
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).startsWith("error: Unknown option");
    }
}
