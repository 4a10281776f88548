package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The writer as the bootstrap part runs it ({@code java -Xmx512m -jar shared-lookup-writer.jar --bootstrap-servers …
 * --topic boot --store-dir …}), kept running for the scale part: its process, its resident memory and faults
 * ({@link ScaleFootprint}), {@code /ready}, {@code /namespaces} and {@code /metrics}. Extra JVM options (a profiler,
 * JFR) come from the environment variable {@code SCALE_WRITER_JVM_OPTS}, extra writer options (for example
 * {@code --apply-threads auto}) from {@code SCALE_WRITER_ARGS}, both split at spaces.
 */
final class ScaleWriter implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Process process;
    private final String base;
    private final Path log;
    private final long startNanos;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ScaleFootprint footprint;

    private ScaleWriter(Process process, String base, Path log, long startNanos, Path store) {
        this.process = process;
        this.base = base;
        this.log = log;
        this.startNanos = startNanos;
        this.footprint = ScaleFootprint.start(process.pid(), store);
    }

    /** Starts the writer on {@code store}; {@code extraArgs} go after the bootstrap part's arguments. */
    static ScaleWriter start(String java, Path writerJar, String servers, Path store, Path logs, String... extraArgs)
            throws IOException {
        int port = Ports.freePort();
        Path log = logs.resolve("writer-" + System.nanoTime() + ".log");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-Dchronicle.analytics.disable=true"));
        String extraJvm = System.getenv("SCALE_WRITER_JVM_OPTS");
        if (extraJvm != null && !extraJvm.isBlank()) {
            command.addAll(List.of(extraJvm.trim().split("\\s+")));
        }
        command.addAll(List.of(
                "-jar",
                writerJar.toString(),
                "--bootstrap-servers",
                servers,
                "--topic",
                BootstrapFeed.TOPIC,
                "--store-dir",
                store.toString(),
                "--http-port",
                Integer.toString(port)));
        command.addAll(List.of(extraArgs));
        String writerArgs = System.getenv("SCALE_WRITER_ARGS");
        if (writerArgs != null && !writerArgs.isBlank()) {
            command.addAll(List.of(writerArgs.trim().split("\\s+")));
        }
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        System.out.println("scale: writer pid " + p.pid() + " "
                + String.join(" ", command.subList(command.indexOf("--http-port") + 2, command.size())) + ", log "
                + log);
        return new ScaleWriter(p, "http://127.0.0.1:" + port, log, start, store);
    }

    /** Waits for {@code /ready}; the milliseconds from process start. */
    long awaitReady(int limitSeconds) throws InterruptedException {
        WriterProcesses.awaitReady(client, base, process, log, limitSeconds);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** This namespace's entry of {@code /namespaces} (generation, entries, capacity, offsets...). */
    JsonNode namespace() throws IOException, InterruptedException {
        return JSON.readTree(get("/namespaces")).path(BootstrapFeed.TOPIC);
    }

    /** A counter or gauge of this namespace from {@code /metrics}; 0 when absent. */
    double metric(String name) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{[^}]*namespace=\"" + BootstrapFeed.TOPIC
                        + "\"[^}]*\\} (\\S+)$")
                .matcher(get("/metrics"));
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + response.statusCode() + "; see " + log);
        }
        return response.body();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    /** The footprint sampled until now; sampling stops (call once, while the writer runs). */
    java.util.Map<String, Object> footprint() throws InterruptedException {
        return footprint.stop();
    }

    /**
     * SIGTERM (the writer's clean stop), SIGKILL after 20 s. Interrupted while waiting: SIGKILL at once, and the
     * interrupt is kept for the caller (a close that threw InterruptedException could swallow it in try-with-resources).
     */
    @Override
    public void close() {
        try {
            WriterProcesses.stop(process);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
