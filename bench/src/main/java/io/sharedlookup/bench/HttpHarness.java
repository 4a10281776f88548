package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TempTrees;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * HTTP lookups (benchmark 8): the writer's Netty endpoint {@code GET /lookup/<namespace>/<key>}, with
 * {@link HttpClient} over HTTP/1.1 keep-alive (one pooled connection per client thread).
 * <ul>
 *   <li><b>fixed rate</b>: open loop; request {@code i} is due at {@code start + i / rate}, client thread
 *       {@code i mod connections} sends it (late if that thread's previous answer was late), and its latency is
 *       counted from the due time, not the send time, so a stall is charged to every request it delays (no
 *       coordinated omission);</li>
 *   <li><b>maximum rate</b>: closed loop, each client thread sends its next request as soon as the answer is in.</li>
 * </ul>
 * The writer runs as in the demo ({@code java -jar shared-lookup-demo.jar}: the writer with a broker in its JVM)
 * and the demo topic {@code users} (ids 1..5000, a few renames and deletes per second, so a rare lookup answers 404);
 * keys are drawn from those ids. A warm-up
 * at the fixed rate, not recorded, comes first.
 *
 * <p>Usage: {@code HttpHarness <demo.jar> <rate/s> <seconds at rate> <seconds at max> <connections> <result.json>}.
 */
public final class HttpHarness {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 5000;

    private HttpHarness() {}

    public static void main(String[] args) throws Exception {
        Path demoJar = Path.of(args[0]);
        int rate = Integer.parseInt(args[1]);
        double rateSeconds = Double.parseDouble(args[2]);
        double maxSeconds = Double.parseDouble(args[3]);
        int connections = Integer.parseInt(args[4]);
        Path result = Path.of(args[5]);
        Path store = Files.createTempDirectory("http-store");
        Path log = Files.createTempFile("http-writer", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        int port = Ports.freePort();
        Process writer = new ProcessBuilder(
                        java,
                        "-Xmx512m",
                        "-Dchronicle.analytics.disable=true",
                        "-jar",
                        demoJar.toString(),
                        "--store-dir",
                        store.toString(),
                        "--http-port",
                        Integer.toString(port))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            String base = "http://127.0.0.1:" + port;
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            long readyMillis = WriterProcesses.awaitReady(client, base, writer, log, 180);
            System.out.println("http: writer ready after " + readyMillis + " ms");
            String prefix = base + "/lookup/users/";

            fixedRate(client, prefix, rate, Math.min(rateSeconds, 5), connections); // warm-up, not recorded
            Histogram h = fixedRate(client, prefix, rate, rateSeconds, connections);
            double maxRate = maxRate(client, prefix, maxSeconds, connections);

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("client", "java.net.http.HttpClient, HTTP/1.1 keep-alive");
            out.put("connections", connections);
            Map<String, Object> fixed = new LinkedHashMap<>();
            fixed.put("requestsPerSecond", rate);
            fixed.put("seconds", rateSeconds);
            fixed.put("requests", h.getTotalCount());
            fixed.put("p50Micros", h.getValueAtPercentile(50) / 1000.0);
            fixed.put("p99Micros", h.getValueAtPercentile(99) / 1000.0);
            fixed.put("p999Micros", h.getValueAtPercentile(99.9) / 1000.0);
            fixed.put("maxMicros", h.getMaxValue() / 1000.0);
            out.put("fixedRate", fixed);
            Map<String, Object> max = new LinkedHashMap<>();
            max.put("seconds", maxSeconds);
            max.put("requestsPerSecond", maxRate);
            out.put("maxRate", max);
            String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
        } finally {
            WriterProcesses.stop(writer);
            TempTrees.delete(store);
            Files.deleteIfExists(log);
        }
    }

    private static HttpRequest request(String prefix, long i) {
        return HttpRequest.newBuilder(URI.create(prefix + (1 + (i * 7919) % KEYS)))
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    /** Open loop at {@code rate}; latencies (ns) from each request's due time to its answer. */
    private static Histogram fixedRate(HttpClient client, String prefix, int rate, double seconds, int connections)
            throws InterruptedException {
        long count = (long) (rate * seconds);
        long period = TimeUnit.SECONDS.toNanos(1) / rate;
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        List<Thread> threads = new ArrayList<>();
        List<Histogram> perThread = new ArrayList<>();
        AtomicLong failures = new AtomicLong();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (int t = 0; t < connections; t++) {
            int first = t;
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            perThread.add(h);
            Thread thread = new Thread(
                    () -> {
                        for (long i = first; i < count; i += connections) {
                            long due = start + i * period;
                            long wait;
                            while ((wait = due - System.nanoTime()) > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            if (!get(client, prefix, i)) {
                                failures.incrementAndGet();
                            }
                            h.recordValue(Math.max(0, System.nanoTime() - due));
                        }
                    },
                    "http-client-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        perThread.forEach(all::add);
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " lookups failed (neither 200 nor 404)");
        }
        return all;
    }

    /** Closed loop on {@code connections} threads; requests per second. */
    private static double maxRate(HttpClient client, String prefix, double seconds, int connections)
            throws InterruptedException {
        AtomicLong done = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < connections; t++) {
            long first = t;
            Thread thread = new Thread(
                    () -> {
                        long i = first;
                        while (System.nanoTime() < end) {
                            if (!get(client, prefix, i)) {
                                failures.incrementAndGet();
                            }
                            done.incrementAndGet();
                            i += connections;
                        }
                    },
                    "http-max-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        double took = (System.nanoTime() - start) / 1e9;
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " lookups failed (neither 200 nor 404)");
        }
        return done.get() / took;
    }

    private static boolean get(HttpClient client, String prefix, long i) {
        try {
            int status = client.send(request(prefix, i), HttpResponse.BodyHandlers.ofString())
                    .statusCode();
            return status == 200 || status == 404; // 404: a user the demo feed just deleted
        } catch (Exception e) {
            return false;
        }
    }
}
