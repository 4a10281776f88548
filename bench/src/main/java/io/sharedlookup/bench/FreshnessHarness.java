package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupTimeoutException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Freshness (benchmark 5): the time from a Kafka produce to the new value being visible to a reader in another JVM,
 * through the real writer. Three JVMs besides this one:
 * <ol>
 *   <li>{@link FreshnessFeed} on the demo's executable jar: an embedded broker and a producer at a fixed rate;</li>
 *   <li>the writer itself ({@code java -jar shared-lookup-writer.jar --bootstrap-servers … --topic fresh}), as
 *       deployed;</li>
 *   <li>a reader ({@code --reader}) that keeps sweeping the {@value FreshnessFeed#KEYS} keys with {@code getInto},
 *       parking 100 µs between sweeps, and records {@code now - sent} for every version it sees for the first time
 *       (a version overwritten before the reader's next sweep is not counted; the sweep adds up to ~0.2 ms).</li>
 * </ol>
 * Both clocks are {@code System.nanoTime()} on one host (Linux {@code CLOCK_MONOTONIC}, shared by processes). A
 * warm-up at the highest rate, not recorded, comes first.
 *
 * <p>Every phase's row carries the host's load average at its start and end: the harness's four JVMs share the host,
 * so on a loaded one a figure measures how long the writer and the reader waited for a CPU (a run queue of 30 on two
 * cores turned milliseconds into seconds, at every commit alike), not the writer; such a row is only comparable with
 * one measured alongside it.
 *
 * <p>Usage: {@code FreshnessHarness <writer.jar> <demo.jar> <rates, e.g. 1000,10000> <seconds per rate>
 * <result.json>}.
 */
public final class FreshnessHarness {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FreshnessHarness() {}

    /**
     * The writer runs with the sidecar JVM settings docs/writer.md recommends (and the container image sets), so that
     * its footprint at these update rates is measured as shipped: heap at most 64 MB, and the resident memory outside
     * the mapped store sampled during every phase.
     */
    static final List<String> WRITER_SIDECAR_FLAGS = List.of(
            "-Xms32m",
            "-Xmx64m",
            "-XX:MaxMetaspaceSize=96m",
            "-XX:ReservedCodeCacheSize=48m",
            "-XX:+UseSerialGC",
            "-XX:CICompilerCount=2",
            "-Xss512k",
            "-XX:MaxDirectMemorySize=32m",
            "-Dchronicle.analytics.disable=true");

    /** Samples a process's resident memory every 200 ms on a thread of its own, keeping the maxima. */
    private static final class FootprintSampler {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long maxTotal;
        private volatile long maxOutsideStore;

        private FootprintSampler(long pid, Path store) {
            thread = new Thread(
                    () -> {
                        while (running) {
                            try {
                                ResidentMemory m = ResidentMemory.of(pid, store);
                                maxTotal = Math.max(maxTotal, m.totalBytes());
                                maxOutsideStore = Math.max(maxOutsideStore, m.outsideDirBytes());
                                Thread.sleep(200);
                            } catch (IOException | InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "footprint-sampler");
            thread.setDaemon(true);
        }

        static FootprintSampler start(long pid, Path store) {
            FootprintSampler s = new FootprintSampler(pid, store);
            s.thread.start();
            return s;
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        long maxTotal() {
            return maxTotal;
        }

        long maxOutsideStore() {
            return maxOutsideStore;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--reader")) {
            reader(Path.of(args[1]));
            return;
        }
        Path writerJar = Path.of(args[0]);
        Path demoJar = Path.of(args[1]);
        List<Integer> rates = new ArrayList<>();
        for (String r : args[2].split(",")) {
            rates.add(Integer.parseInt(r));
        }
        double seconds = Double.parseDouble(args[3]);
        Path result = Path.of(args[4]);
        Path store = Files.createTempDirectory("freshness-store");
        Path logs = Files.createTempDirectory("freshness-logs");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> addFlags = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-"))
                .toList();
        List<Process> processes = new ArrayList<>();
        try {
            // 1. Broker and producer.
            List<String> feedCmd = new ArrayList<>(List.of(java, "-Xmx512m"));
            feedCmd.addAll(List.of("-cp", demoJar + File.pathSeparator + codeSource(), FreshnessFeed.class.getName()));
            Process feed = new ProcessBuilder(feedCmd)
                    .redirectError(logs.resolve("feed.err").toFile())
                    .start();
            processes.add(feed);
            BufferedReader feedOut = reader(feed);
            PrintWriter feedIn = new PrintWriter(feed.getOutputStream(), true, StandardCharsets.UTF_8);
            String bootstrap = expect(feedOut, "BOOTSTRAP ", feed, logs.resolve("feed.err"))
                    .substring(10);

            // 2. The writer, as deployed.
            int httpPort = Ports.freePort();
            List<String> writerCmd = new ArrayList<>(List.of(java));
            writerCmd.addAll(WRITER_SIDECAR_FLAGS);
            writerCmd.addAll(List.of(
                    "-jar",
                    writerJar.toString(),
                    "--bootstrap-servers",
                    bootstrap,
                    "--topic",
                    FreshnessFeed.TOPIC,
                    "--store-dir",
                    store.toString(),
                    "--http-port",
                    Integer.toString(httpPort)));
            Process writer = new ProcessBuilder(writerCmd)
                    .redirectErrorStream(true)
                    .redirectOutput(logs.resolve("writer.log").toFile())
                    .start();
            processes.add(writer);

            // 3. The reader, in a JVM of its own.
            List<String> readerCmd = new ArrayList<>(List.of(java, "-Xmx256m", "-Dchronicle.analytics.disable=true"));
            readerCmd.addAll(addFlags);
            readerCmd.addAll(List.of(
                    "-cp",
                    System.getProperty("java.class.path"),
                    FreshnessHarness.class.getName(),
                    "--reader",
                    store.toString()));
            Process reader = new ProcessBuilder(readerCmd)
                    .redirectError(logs.resolve("reader.err").toFile())
                    .start();
            processes.add(reader);
            BufferedReader readerOut = reader(reader);
            PrintWriter readerIn = new PrintWriter(reader.getOutputStream(), true, StandardCharsets.UTF_8);
            // The namespace appears once the writer has published its first generation; prime every key so the
            // reader has seen the topic before measuring starts.
            feedIn.println("RATE " + FreshnessFeed.KEYS + " 1");
            expect(feedOut, "SENT ", feed, logs.resolve("feed.err"));
            expect(readerOut, "READY", reader, logs.resolve("reader.err"));
            // Warm-up, not recorded: the writer's, the reader's and the producer's code paths get compiled.
            int warmRate = rates.stream().max(Integer::compare).orElseThrow();
            feedIn.println("RATE " + warmRate + " " + Math.min(seconds, 3));
            long last = Long.parseLong(
                    expect(feedOut, "SENT ", feed, logs.resolve("feed.err")).split(" ")[2]);
            // Each phase starts with the writer caught up, so no backlog of the one before is counted.
            caughtUp(readerIn, readerOut, reader, logs, last);

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("keys", FreshnessFeed.KEYS);
            out.put("secondsPerRate", seconds);
            out.put("writerJvmFlags", WRITER_SIDECAR_FLAGS);
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int rate : rates) {
                double loadAtStart = loadAverage();
                readerIn.println("START " + (last + 1));
                expect(readerOut, "STARTED", reader, logs.resolve("reader.err"));
                feedIn.println("RATE " + rate + " " + seconds);
                FootprintSampler footprint = FootprintSampler.start(writer.pid(), store);
                String[] sentLine =
                        expect(feedOut, "SENT ", feed, logs.resolve("feed.err")).split(" ");
                footprint.stop();
                long sent = Long.parseLong(sentLine[1]);
                last = Long.parseLong(sentLine[2]);
                long behind = caughtUp(readerIn, readerOut, reader, logs, last);
                readerIn.println("STOP");
                String[] r = expect(readerOut, "RESULT ", reader, logs.resolve("reader.err"))
                        .split(" ");
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("updatesPerSecond", rate);
                row.put("loadAverageAtStart", loadAtStart);
                row.put("loadAverageAtEnd", loadAverage());
                row.put("sent", sent);
                row.put("observed", Long.parseLong(r[1]));
                row.put("catchUpMillisAfterLastSend", behind);
                row.put("p50Micros", Double.parseDouble(r[2]));
                row.put("p99Micros", Double.parseDouble(r[3]));
                row.put("p999Micros", Double.parseDouble(r[4]));
                row.put("maxMicros", Double.parseDouble(r[5]));
                row.put("readerLockTimeouts", Long.parseLong(r[6]));
                row.put("writerMaxRssOutsideStoreBytes", footprint.maxOutsideStore());
                row.put("writerMaxRssBytes", footprint.maxTotal());
                rows.add(row);
                System.out.println("freshness " + row);
            }
            out.put("rates", rows);
            String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Path parent = result.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Files.writeString(result, json);
            System.out.println(json);
        } finally {
            for (int i = processes.size() - 1; i >= 0; i--) {
                Process p = processes.get(i);
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            }
            TempTrees.delete(store);
        }
    }

    /** The host's load average over the last minute; negative where the platform does not say. */
    private static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

    /** Asks the reader to wait until it has seen sequence {@code last}; returns how long that took (ms). */
    private static long caughtUp(PrintWriter readerIn, BufferedReader readerOut, Process reader, Path logs, long last)
            throws IOException {
        readerIn.println("WAIT " + last);
        String[] r = expect(readerOut, "CAUGHTUP ", reader, logs.resolve("reader.err"))
                .split(" ");
        if (!r[1].equals("true")) {
            throw new IllegalStateException("the reader did not see record " + last + " within 120 s; see " + logs);
        }
        return Long.parseLong(r[2]);
    }

    private static String codeSource() throws Exception {
        return Path.of(FreshnessHarness.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The next line starting with {@code prefix}; fails when the process ends first. */
    private static String expect(BufferedReader in, String prefix, Process p, Path log) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException(
                "process ended (" + p.info().command().orElse("?") + ") before '" + prefix + "'; see " + log);
    }

    /** The reader JVM: waits for the namespace, then measures between START and STOP lines on stdin. */
    private static void reader(Path storeDir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        SharedLookupStore store = SharedLookupStore.open(storeDir);
        Lookup lookup = null;
        String[] keys = new String[FreshnessFeed.KEYS];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "f" + i;
        }
        long[] lastSeq = new long[keys.length];
        Arrays.fill(lastSeq, -1);
        StringBuilder value = new StringBuilder(64);
        // Wait until every key has a value (the priming records): the writer is caught up and publishing.
        int seen = 0;
        while (seen < keys.length) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the writer published no complete namespace within 120 s");
            }
            try {
                if (lookup == null) {
                    lookup = store.lookup(FreshnessFeed.TOPIC);
                }
                seen = 0;
                for (String key : keys) {
                    if (lookup.getInto(key, value)) {
                        seen++;
                    }
                }
            } catch (RuntimeException notYet) {
                // namespace not published yet
            }
            Thread.sleep(50);
        }
        System.out.println("READY");
        System.out.flush();

        // Recorder: written by the sweeper, read by this thread between START and STOP.
        Recorder recorder = new Recorder(TimeUnit.SECONDS.toMicros(60), 3);
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicLong fromSeq = new AtomicLong();
        AtomicLong maxSeen = new AtomicLong(-1);
        AtomicLong lockTimeouts = new AtomicLong();
        Lookup live = lookup;
        Thread sweeper = new Thread(
                () -> {
                    while (true) {
                        boolean record = measuring.get();
                        long from = fromSeq.get();
                        for (int i = 0; i < keys.length; i++) {
                            try {
                                if (!live.getInto(keys[i], value)) {
                                    continue;
                                }
                            } catch (LookupTimeoutException e) {
                                // The writer held the key's segment past the reader's lock bound (descheduled on a busy
                                // host): counted, and the key is read again on the next sweep, as an application would.
                                lockTimeouts.incrementAndGet();
                                continue;
                            }
                            long now = System.nanoTime();
                            int colon = value.indexOf(":");
                            long seq = Long.parseLong(value, 0, colon, 10);
                            if (seq > lastSeq[i]) {
                                if (record && seq >= from) {
                                    long sent = Long.parseLong(value, colon + 1, value.length(), 10);
                                    recorder.recordValue(Math.max(0, now - sent) / 1000);
                                }
                                lastSeq[i] = seq;
                                if (seq > maxSeen.get()) {
                                    maxSeen.set(seq);
                                }
                            }
                        }
                        LockSupport.parkNanos(100_000);
                    }
                },
                "freshness-sweeper");
        sweeper.setDaemon(true);
        sweeper.start();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("START ")) {
                fromSeq.set(Long.parseLong(line.substring(6)));
                recorder.getIntervalHistogram(); // drop anything before
                measuring.set(true);
                System.out.println("STARTED");
            } else if (line.startsWith("WAIT ")) {
                long target = Long.parseLong(line.substring(5));
                long start = System.nanoTime();
                long limit = start + TimeUnit.SECONDS.toNanos(120);
                while (maxSeen.get() < target && System.nanoTime() < limit) {
                    Thread.sleep(1);
                }
                System.out.println("CAUGHTUP " + (maxSeen.get() >= target) + " "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } else if (line.equals("STOP")) {
                measuring.set(false);
                Histogram h = recorder.getIntervalHistogram();
                System.out.printf(
                        "RESULT %d %d %d %d %d %d%n",
                        h.getTotalCount(),
                        h.getValueAtPercentile(50),
                        h.getValueAtPercentile(99),
                        h.getValueAtPercentile(99.9),
                        h.getMaxValue(),
                        lockTimeouts.getAndSet(0));
            }
            System.out.flush();
        }
        store.close();
    }
}
