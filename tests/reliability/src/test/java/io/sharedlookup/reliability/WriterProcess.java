package io.sharedlookup.reliability;

import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.writer.WriterMain;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The writer in a separate JVM (its real main class, as {@code java -jar} runs it), with its HTTP port. */
final class WriterProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    final ChildJvm jvm;
    final int port;

    private WriterProcess(ChildJvm jvm, int port) {
        this.jvm = jvm;
        this.port = port;
    }

    static WriterProcess start(String name, String bootstrap, Path store, String topic, String... extra)
            throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", bootstrap, "--store-dir", store.toString(),
                "--topic", topic, "--http-port", Integer.toString(port)));
        args.addAll(List.of(extra));
        return new WriterProcess(Children.start(name, WriterMain.class, args.toArray(String[]::new)), port);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    HttpResponse<String> send(String method, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .method(method, HttpRequest.BodyPublishers.ofString(method.equals("GET") ? "" : "x=1"))
                        .timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return send("GET", path);
    }

    /** A response read off the wire: status code and body. */
    record Raw(int status, String body) {
    }

    /**
     * Sends {@code GET path} exactly as given, byte for byte, over a plain socket: an HTTP client would refuse or
     * normalise the malformed and traversing paths the security checks need to send.
     */
    Raw rawGet(String path) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int headerEnd = response.indexOf("\r\n\r\n");
            String[] statusLine = response.substring(0, response.indexOf("\r\n")).split(" ");
            return new Raw(Integer.parseInt(statusLine[1]), headerEnd < 0 ? "" : response.substring(headerEnd + 4));
        }
    }

    boolean ready() {
        try {
            return get("/ready").statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    /** Waits until /ready says 200 (or the process dies: then fails with its output). */
    void awaitReady(Duration atMost) {
        await(jvm + " ready").atMost(atMost).pollInterval(Duration.ofMillis(50))
                .until(() -> ready() || !jvm.isAlive());
        if (!jvm.isAlive()) {
            throw new AssertionError("writer exited; output: " + jvm.lines());
        }
    }

    /** A metric sample such as {@code sharedlookup_writer_rebuilds_total{namespace="t"}}, 0 when absent/unreachable. */
    double metric(String nameAndLabels) {
        try {
            for (String line : get("/metrics").body().split("\n")) {
                if (line.startsWith(nameAndLabels + " ")) {
                    return Double.parseDouble(line.substring(nameAndLabels.length() + 1).trim());
                }
            }
        } catch (Exception e) {
            // unreachable: 0
        }
        return 0;
    }

    void kill() throws InterruptedException {
        Children.kill(jvm);
    }

    @Override
    public void close() {
        Children.close(jvm);
    }
}
