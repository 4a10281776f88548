package io.sharedlookup.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * The README's main command, run as a user runs it: plain {@code java -jar shared-lookup-demo.jar} (no flags: they
 * must come from the manifest), the embedded broker, the demo feed and the writer in one JVM, lookups resolving over
 * HTTP and through reader-lib, SIGTERM ending it cleanly.
 */
class DemoJarIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path tmp;

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String jar() {
        return System.getProperty("sharedlookup.test.demoJar");
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
    void demoRunsFromThePlainJar() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(java(), "-jar", jar(), "--store-dir", tmp.resolve("store").toString(),
                "--http-port", Integer.toString(port)).redirectErrorStream(true).start();
        List<String> out = run(p);
        try {
            await("demo ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !p.isAlive() || readyAndResolving(port));
            assertThat(p.isAlive()).as("output: %s", out).isTrue();
            assertThat(out).anyMatch(l -> l.startsWith("Embedded Kafka broker: 127.0.0.1:"));
            assertThat(out).anyMatch(l -> l.contains("curl http://127.0.0.1:" + port + "/lookup/users/42"));
            // The demo shows lookups resolving by itself, through reader-lib, following the feed's changes.
            await("the demo prints resolved lookups").atMost(Duration.ofSeconds(30))
                    .until(() -> out.stream().anyMatch(l -> l.matches("reader-lib: users/42 = \".+\"; last change "
                            + "sent: users/\\d+ -> .*, store has .* \\(\\d+ entries\\)")));
            p.destroy();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("exits within 10 s of SIGTERM").isTrue();
            assertThat(Files.readString(tmp.resolve("store/users/manifest.properties")))
                    .contains("writer.state=closed");
        } finally {
            p.destroyForcibly();
            Files.write(Path.of("target", "demo-jar-it.log"), out);
        }
    }

    @Test
    void anOptionTheDemoSetsItselfExitsWithOneLine() throws Exception {
        Process p = new ProcessBuilder(java(), "-jar", jar(), "--store-dir", tmp.toString(), "--topic", "items")
                .redirectErrorStream(true).start();
        List<String> out = run(p);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> !out.isEmpty());
        assertThat(out).singleElement().asString().startsWith("error: the demo sets --topic itself");
    }

    private static boolean readyAndResolving(int port) {
        return status(port, "/ready") == 200 && status(port, "/lookup/users/42") == 200;
    }

    private static int status(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
