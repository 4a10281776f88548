package io.sharedlookup.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Ports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main command, run as a user runs it: plain {@code java -jar shared-lookup-demo.jar} (no flags: they
 * must come from the manifest), the embedded broker, the demo feed and the writer in one JVM, lookups resolving over
 * HTTP and through reader-lib, SIGTERM ending it cleanly.
 */
class DemoJarIT {
    @TempDir
    Path tmp;

    private static Path jar() {
        return Path.of(System.getProperty("sharedlookup.test.demoJar"));
    }

    @Test
    void demoRunsFromThePlainJar() throws Exception {
        int port = Ports.freePort();
        try (ChildJvm demo = ChildJvm.startJar(
                "demo-jar-it",
                Path.of("target"),
                jar(),
                "--store-dir",
                tmp.resolve("store").toString(),
                "--http-port",
                Integer.toString(port))) {
            demo.awaitServing(port, "/ready", "/lookup/users/42");
            demo.awaitLine(Duration.ofSeconds(30), l -> l.startsWith("Writer ready after "));
            List<String> out = demo.lines();
            // What it is doing while it starts, in order, rather than seconds of silence: broker, records, writer,
            // progress, ready.
            List<String> progress = out.stream()
                    .filter(l -> l.startsWith("Starting an embedded Kafka broker")
                            || l.startsWith("Producing 5000 records to topic 'users'")
                            || l.contains("Starting the writer")
                            || l.startsWith("Waiting for the writer to be ready: ")
                            || l.startsWith("Writer ready after "))
                    .toList();
            assertThat(progress).as("output: %s", out).hasSizeGreaterThanOrEqualTo(4);
            assertThat(progress.get(0)).startsWith("Starting an embedded Kafka broker");
            assertThat(progress.get(1)).startsWith("Producing 5000 records");
            assertThat(progress.get(2)).isEqualTo("Produced 5000 records. Starting the writer...");
            // The writer's progress (none when it was ready at the first look), then that it is ready.
            assertThat(progress.subList(3, progress.size() - 1))
                    .allMatch(l ->
                            l.matches("Waiting for the writer to " + "be ready: \\d+ % \\(\\d+ of 5000 records\\).*"));
            assertThat(progress.get(progress.size() - 1))
                    .matches("Writer ready after \\d+ ms: namespace 'users' " + "holds \\d+ entries.*");
            assertThat(out).anyMatch(l -> l.startsWith("Embedded Kafka broker: 127.0.0.1:"));
            assertThat(out).anyMatch(l -> l.contains("curl http://127.0.0.1:" + port + "/lookup/users/42"));
            // The demo shows lookups resolving by itself, through reader-lib, following the feed's changes.
            await("the demo prints resolved lookups")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> demo.printed(l -> l.matches("reader-lib: users/42 = \".+\"; last change "
                            + "sent: users/\\d+ -> .*, store has .* \\(\\d+ entries\\)")));
            demo.assertStopsWithinTenSecondsOfSigterm();
            demo.assertNoWarningOrErrorFrom(l -> l.endsWith(" - Stopping")); // the broker's double close WARNed
            assertThat(Files.readString(tmp.resolve("store/users/manifest.properties")))
                    .contains("writer.state=closed");
        }
    }

    @Test
    void anOptionTheDemoSetsItselfExitsWithOneLine() throws Exception {
        ChildJvm p = ChildJvm.startJar("out", tmp, jar(), "--store-dir", tmp.toString(), "--topic", "items");
        assertThat(p.awaitExit()).isEqualTo(2);
        assertThat(p.lines()).singleElement().asString().startsWith("error: the demo sets --topic itself");
    }
}
