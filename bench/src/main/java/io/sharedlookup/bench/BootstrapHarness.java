package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Writer bootstrap (benchmark 4): an N-record topic on a real local broker ({@link BootstrapFeed}, the demo jar's
 * {@code EmbeddedKafka} in a JVM of its own), consumed into an empty store by the writer as deployed
 * ({@code java -jar shared-lookup-writer.jar}) until {@code /ready} answers 200, against a bare {@link
 * org.apache.kafka.clients.consumer.KafkaConsumer} in a fresh JVM that only decodes the records to the end offsets,
 * on the same topic in the same run. Both are timed from process start (JVM start included for both) to done.
 *
 * <p>Restart (benchmark 6), on the same topic and store afterwards: the writer started again on the store it has just
 * closed cleanly (SIGTERM), to {@code /ready} (the resume path, from stored offsets), against a consumer in a fresh JVM
 * re-reading the whole topic into a {@link java.util.HashMap} (what Druid's Kafka lookup does at every start); and
 * reader JVMs ({@link ReaderStart}), three after one another on each of three class paths, from process start to the
 * first value in hand.
 *
 * <p>Usage: {@code BootstrapHarness <writer.jar> <demo.jar> <records> <result.json>}.
 */
public final class BootstrapHarness {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BootstrapHarness() {}

    public static void main(String[] args) throws Exception {
        Path writerJar = Path.of(args[0]);
        Path demoJar = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        Path result = Path.of(args[3]);
        Path store = Files.createTempDirectory("bootstrap-store");
        Path logs = Files.createTempDirectory("bootstrap-logs");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The broker and the Kafka client for the feed and the bare consumers: the demo jar (the writer's has no
        // broker).
        String feedCp = demoJar + File.pathSeparator + codeSource();
        List<Process> processes = new ArrayList<>();
        try {
            Process feed = new ProcessBuilder(
                            java, "-Xmx512m", "-cp", feedCp, BootstrapFeed.class.getName(), Long.toString(records))
                    .redirectError(logs.resolve("feed.err").toFile())
                    .start();
            processes.add(feed);
            String[] boot = expect(reader(feed), "BOOTSTRAP ", feed, logs.resolve("feed.err"))
                    .split(" ");
            String servers = boot[1];
            System.out.printf("bootstrap: %s records produced in %s ms%n", boot[2], boot[3]);

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("records", records);
            out.put("produceMillis", Long.parseLong(boot[3]));

            // The bare consumer first, then the writer: both read a log the broker has just written (page cache).
            out.put("bareConsumer", consumer(java, feedCp, servers, "decode", records, logs));
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            Map<String, Object> bootstrap = writer(java, writerJar, servers, store, client, records, logs);
            bootstrap.remove("log");
            out.put("writerBootstrap", bootstrap);
            double ratio = rate(out, "writerBootstrap") / rate(out, "bareConsumer");
            out.put("writerToBareConsumerRatio", ratio);

            // 6. Restart: the writer again on the store it just closed cleanly (the resume path), against a consumer
            // re-reading the topic into a HashMap, what Druid's Kafka lookup does at every start.
            Map<String, Object> resume = writer(java, writerJar, servers, store, client, records, logs);
            resume.put(
                    "resumed",
                    Files.readString(Path.of((String) resume.remove("log"))).contains("resuming generation"));
            out.put("writerResume", resume);
            out.put("hashMapConsumer", consumer(java, feedCp, servers, "hashmap", records, logs));
            // And a reader JVM from process start to its first lookup on that store.
            // Twice: on one application jar holding reader-lib and Chronicle (the writer's shaded jar plus this class),
            // and on the benchmarks' class path of 127 entries (reader-lib, Druid, LMDB, Redis, JMH...).
            out.put(
                    "readerStart",
                    readerStarts(
                            java, feedCp, "the writer's shaded jar (reader-lib, Chronicle)", store, records, 3, logs));
            out.put(
                    "readerStartBenchClassPath",
                    readerStarts(
                            java,
                            System.getProperty("java.class.path"),
                            "the benchmarks' (reader-lib plus Druid, LMDB, Redis clients, JMH)",
                            store,
                            records,
                            3,
                            logs));
            // And without Chronicle's native bindings (JNA, jnr-ffi, affinity), as docs/reader.md allows a reader.
            String withoutNative = Arrays.stream(
                            System.getProperty("java.class.path").split(File.pathSeparator))
                    .filter(e -> !e.matches(".*/(jna|jna-platform|jnr-[a-z0-9]+|jffi|affinity)-[^/]*\\.jar"))
                    .collect(Collectors.joining(File.pathSeparator));
            out.put(
                    "readerStartWithoutNativeBindings",
                    readerStarts(
                            java,
                            withoutNative,
                            "the benchmarks' without JNA, jnr-ffi and affinity",
                            store,
                            records,
                            3,
                            logs));

            String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
            TempTrees.delete(logs); // kept only when something failed
        } finally {
            for (Process p : processes) {
                p.getOutputStream().close(); // the feed stops its broker when stdin closes
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    WriterProcesses.stop(p);
                }
            }
            TempTrees.delete(store);
        }
    }

    /** {@code runs} reader JVMs one after another, each from process start to its first lookup (ms). */
    private static Map<String, Object> readerStarts(
            String java, String classPath, String classPathName, Path store, long records, int runs, Path logs)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-Dchronicle.analytics.disable=true"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-"))
                .toList());
        String key = BenchData.key((int) (records / 2));
        cmd.addAll(List.of("-cp", classPath, ReaderStart.class.getName(), store.toString(), BootstrapFeed.TOPIC, key));
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            Path err = logs.resolve("reader-" + i + ".err");
            long startedAt = System.currentTimeMillis();
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            try {
                String[] line = expect(reader(p), "FOUND ", p, err).split(" ", 3);
                if (!line[2].equals(BenchData.value((int) (records / 2)))) {
                    throw new IllegalStateException("reader found '" + line[2] + "' for " + key);
                }
                millis.add(Long.parseLong(line[1]) - startedAt);
            } finally {
                WriterProcesses.stop(p);
            }
        }
        List<Long> sorted = millis.stream().sorted().toList();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("runs", millis);
        row.put("medianMillis", sorted.get(sorted.size() / 2));
        row.put("maxMillis", sorted.get(sorted.size() - 1));
        row.put("classPath", classPathName);
        System.out.println("bootstrap: reader start " + row);
        return row;
    }

    @SuppressWarnings("unchecked")
    private static double rate(Map<String, Object> out, String key) {
        return ((Number) ((Map<String, Object>) out.get(key)).get("recordsPerSecond")).doubleValue();
    }

    /** A peer consumer in a fresh JVM: process start to its CONSUMED line. */
    static Map<String, Object> consumer(
            String java, String feedCp, String servers, String mode, long records, Path logs) throws Exception {
        // The HashMap copy needs ~150 B per record on the heap (10M records: ~1.5 GB); 1 GB covers the rest.
        String heap = "-Xmx" + (1024 + records * 300 / (1 << 20)) + "m";
        long start = System.nanoTime();
        Process p = new ProcessBuilder(
                        java, heap, "-cp", feedCp, BootstrapFeed.class.getName(), "--consume", servers, mode)
                .redirectError(logs.resolve("consume-" + mode + ".err").toFile())
                .start();
        try {
            String[] line = expect(reader(p), "CONSUMED ", p, logs.resolve("consume-" + mode + ".err"))
                    .split(" ");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long count = Long.parseLong(line[1]);
            if (count != records) {
                throw new IllegalStateException("consumer read " + count + " records, expected " + records);
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("millisFromProcessStart", millis);
            row.put("millisInJvm", Long.parseLong(line[2]));
            row.put("recordsPerSecond", records * 1000.0 / millis);
            System.out.println("bootstrap: consumer (" + mode + ") " + row);
            return row;
        } finally {
            WriterProcesses.stop(p);
        }
    }

    /** Starts the writer on {@code store}, waits for /ready, stops it cleanly (SIGTERM); the time to /ready. */
    static Map<String, Object> writer(
            String java,
            Path writerJar,
            String servers,
            Path store,
            HttpClient client,
            long records,
            Path logs,
            String... extraArgs)
            throws Exception {
        int port = Ports.freePort();
        Path log = logs.resolve("writer-" + System.nanoTime() + ".log");
        long start = System.nanoTime();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx512m",
                "-Dchronicle.analytics.disable=true",
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
        Process writer = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            WriterProcesses.awaitReady(client, "http://127.0.0.1:" + port, writer, log, 1800);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("millisFromProcessStart", millis);
            row.put("recordsPerSecond", records * 1000.0 / millis);
            System.out.println("bootstrap: writer " + row);
            row.put("log", log.toString());
            return row;
        } finally {
            WriterProcesses.stop(writer);
        }
    }

    static String codeSource() throws Exception {
        return Path.of(BootstrapHarness.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
    }

    static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The next line starting with {@code prefix}; fails when the process ends first. */
    static String expect(BufferedReader in, String prefix, Process p, Path log) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("process ended before '" + prefix + "'; see " + log);
    }
}
