package io.sharedlookup.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An executable jar run as a user runs it: plain {@code java -jar} on this JVM's java, no flag (they must come from
 * the jar's manifest), stdout and stderr collected line by line and written to a log file at {@link #close}. Used by
 * the jars' integration tests (the writer's WriterJarIT, the demo's DemoJarIT).
 */
public final class JarProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final Path log;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread pump;

    private JarProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.pump = new Thread(this::collect, "jar-output");
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code java -jar jar args...}; its output goes to {@code log} when closed. */
    public static JarProcess start(Path log, String jar, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar));
        cmd.addAll(List.of(args));
        return new JarProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start(), log);
    }

    /** A loopback port free right now, for {@code --http-port}. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when every path answers 200 on {@code 127.0.0.1:port}; false on any other answer or none. */
    public static boolean answers200(int port, String... paths) {
        for (String path : paths) {
            try {
                int status = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status != 200) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void collect() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    /** Its output so far (stdout and stderr), live. */
    public List<String> lines() {
        return lines;
    }

    /** Waits up to 120 s for the HTTP endpoint on {@code port} to answer 200 on every path; fails if it dies first. */
    public void awaitServing(int port, String... paths) {
        await("serving " + List.of(paths)).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> !process.isAlive() || answers200(port, paths));
        assertThat(process.isAlive()).as("still running; output: %s", lines).isTrue();
    }

    /** Sends SIGTERM and asserts the process ends within 10 s, as the jars promise. */
    public void assertStopsWithinTenSecondsOfSigterm() throws InterruptedException {
        process.destroy();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("exits within 10 s of SIGTERM").isTrue();
    }

    /**
     * Waits for the process to end (60 s at most) and for the last of its output, and returns its exit code.
     *
     * @throws AssertionError when it is still running after 60 s
     */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after 60 s; output: " + lines);
        }
        pump.join(5_000);
        return process.exitValue();
    }

    /** Kills the process if it still runs and writes its output to the log. */
    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        Files.createDirectories(log.toAbsolutePath().getParent());
        Files.write(log, lines);
    }
}
