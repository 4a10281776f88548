package io.sharedlookup.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The writer JVM as the harnesses run it: waiting for {@code /ready}, stopping it cleanly. */
final class WriterProcesses {
    private WriterProcesses() {}

    /**
     * Polls {@code base/ready} every 10 ms until it answers 200; returns the milliseconds that took from this call.
     * Fails when the writer exits first or after {@code limitSeconds}.
     */
    static long awaitReady(HttpClient client, String base, Process writer, Path log, int limitSeconds)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(limitSeconds);
        HttpRequest ready = HttpRequest.newBuilder(URI.create(base + "/ready"))
                .timeout(Duration.ofSeconds(2))
                .build();
        while (System.nanoTime() < deadline) {
            if (!writer.isAlive()) {
                throw new IllegalStateException("the writer exited (" + writer.exitValue() + "); see " + log);
            }
            try {
                if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                }
            } catch (IOException notListeningYet) {
                // HTTP not up yet
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("the writer was not ready within " + limitSeconds + " s; see " + log);
    }

    /** SIGTERM (the writer's clean stop), then SIGKILL after 20 s. */
    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
    }
}
