package io.sharedlookup.druid.cluster;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The shared-lookup writer as users run it: {@code java -jar shared-lookup-writer.jar} (its JVM flags come from the
 * jar's manifest), consuming one topic into a store directory, with its HTTP API on 127.0.0.1.
 */
final class WriterService implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final ServiceProcess process;
    private final int httpPort;

    private WriterService(ServiceProcess process, int httpPort) {
        this.process = process;
        this.httpPort = httpPort;
    }

    static WriterService start(Path writerJar, String bootstrap, String topic, Path storeDir, Path workDir,
                               Path logDir) throws IOException {
        int port = ServiceProcess.freePort();
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx192m", "-jar", writerJar.toString(),
                "--bootstrap-servers", bootstrap, "--topic", topic, "--store-dir", storeDir.toString(),
                "--http-port", Integer.toString(port));
        return new WriterService(ServiceProcess.start("writer", cmd, workDir, logDir), port);
    }

    /** Waits for {@code /ready}: every namespace published and caught up with its topic. */
    void awaitReady() {
        process.awaitUp("ready", START_TIMEOUT, () -> HttpJson.get(httpPort, "/ready").ok());
    }

    /** The writer's answer to {@code GET /lookup/<namespace>/<key>}: the value, or null for its 404. */
    String lookup(String namespace, String key) {
        HttpJson.Answer a = HttpJson.get(httpPort, "/lookup/" + namespace + "/"
                + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20"));
        if (a.status() == 404 && a.body().startsWith("No key")) {
            return null;
        }
        if (a.status() != 200) {
            throw new AssertionError("writer's lookup of '" + key + "': " + a + "\n" + process.tail(40));
        }
        return a.body();
    }

    ServiceProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.close();
    }

    void kill() {
        process.kill();
    }
}
