package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The scale part of {@code bench/run} (issue #42 item 3): {@code records} {@link ScaleData} records (20-character
 * keys, 36–44-byte values) in {@value ScaleFeed#PARTITIONS} partitions of a real local broker ({@link ScaleFeed}),
 * then, in the same run and on that topic: a bare consumer reading and decoding it against the writer's bootstrap
 * (its jar, as the bootstrap part runs it) to {@code /ready}, with the writer's resident memory outside the mapped
 * store, its page faults and CPU time; the store's size per entry against the raw key and value bytes; {@code verify},
 * {@code snapshot} and a new writer {@code --seed}ed from that snapshot; reader JVMs from start to first value;
 * lookups on the writer-filled store next to 1M- and 10M-entry stores of the same records ({@link ScaleLookups});
 * and the writer taking as many new keys again while reader JVMs read ({@link ScaleGrowth}).
 *
 * <p>Everything lives in one working directory under {@code $SCALE_DIR} (default: the temporary directory), deleted at
 * the end; the processes' logs are kept beside it when a run fails. Before anything starts, the free space there is compared with what the run needs at its peak
 * ({@link #diskNeeded}); a run that cannot fit is refused with one line.
 *
 * <p>Usage: {@code ScaleHarness <writer.jar> <demo.jar> <records> <result.json> [--short-lookups]
 * [--bootstrap-only | --growth-only]}: {@code --short-lookups} measures lookups with fewer, shorter iterations (a check run);
 * {@code --bootstrap-only} stops after the bootstrap and the store's size (for profiling the writer, with
 * {@code SCALE_WRITER_JVM_OPTS}); {@code --growth-only} goes from the bootstrap straight to the growth.
 */
public final class ScaleHarness {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The comparison stores' sizes (the writer-filled store's size is added). */
    static final long[] COMPARISON_SIZES = {1_000_000, 10_000_000};

    private ScaleHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !args[2].matches("[1-9][0-9]*")) {
            System.err.println("usage: ScaleHarness <writer.jar> <demo.jar> <records, a positive number> "
                    + "<result.json> [--short-lookups] [--bootstrap-only | --growth-only]");
            System.exit(2);
        }
        Path writerJar = Path.of(args[0]);
        Path demoJar = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        Path result = Path.of(args[3]);
        List<String> flags = Arrays.asList(args).subList(4, args.length);
        boolean shortLookups = flags.contains("--short-lookups");
        boolean bootstrapOnly = flags.contains("--bootstrap-only");
        boolean growthOnly = flags.contains("--growth-only");
        Path base = Path.of(System.getenv().getOrDefault("SCALE_DIR", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        long free = Files.getFileStore(base).getUsableSpace();
        long needed = diskNeeded(records);
        if (free < needed) {
            System.err.printf(
                    "bench/run scale: %,d records need about %.1f GB free under %s (Kafka log, store and "
                            + "its growth, snapshot, seeded copy, comparison stores), only %.1f GB are: set SCALE_DIR to a "
                            + "bigger disk or SCALE_RECORDS lower%n",
                    records, needed / 1e9, base, free / 1e9);
            System.exit(3);
        }
        Path work = Files.createTempDirectory(base, "scale-");
        Path logs = Files.createDirectories(work.resolve("logs"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String feedCp = demoJar + File.pathSeparator + BootstrapHarness.codeSource();
        int limitSeconds = (int) Math.max(1800, records / 10_000);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("records", records);
        out.put("partitions", ScaleFeed.PARTITIONS);
        out.put("machine", machine(base, free, needed));
        out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        out.put("writerArgs", System.getenv().getOrDefault("SCALE_WRITER_ARGS", ""));
        out.put("notMeasured", List.of("lookup percentiles (average time per call only)"));
        Process feed = new ProcessBuilder(
                        java,
                        "-Xmx1g",
                        "-cp",
                        feedCp,
                        ScaleFeed.class.getName(),
                        work.resolve("kafka").toString(),
                        Long.toString(records))
                .redirectError(logs.resolve("feed.err").toFile())
                .start();
        boolean keepLogs = true; // unless the run succeeds
        try {
            BufferedReader feedOut = BootstrapHarness.reader(feed);
            PrintStream feedIn = new PrintStream(feed.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] boot = BootstrapHarness.expect(feedOut, "SCALE ", feed, logs.resolve("feed.err"))
                    .split(" ");
            String servers = boot[1];
            long keyBytes = Long.parseLong(boot[4]);
            long valueBytes = Long.parseLong(boot[5]);
            Map<String, Object> produce = new LinkedHashMap<>();
            produce.put("millis", Long.parseLong(boot[3]));
            produce.put("keyBytes", keyBytes);
            produce.put("valueBytes", valueBytes);
            produce.put("settings", "lz4, acks=1, linger.ms=50, batch.size=1 MiB, one producer");
            out.put("produce", produce);
            System.out.printf("scale: %,d records produced in %s ms (load %s)%n", records, boot[3], load());

            out.put(
                    "bareConsumer",
                    phase(() -> BootstrapHarness.consumer(java, feedCp, servers, "decode", records, logs)));
            Path store = work.resolve("store");
            out.put(
                    "writerBootstrap",
                    phase(() -> bootstrap(java, writerJar, servers, store, records, logs, limitSeconds)));
            out.put(
                    "writerToBareConsumerRatio",
                    number(out, "bareConsumer", "millisFromProcessStart")
                            / number(out, "writerBootstrap", "millisFromProcessStart"));
            out.put("storeFiles", storeFiles(store, records, keyBytes + valueBytes));
            if (growthOnly) {
                out.put(
                        "growth",
                        growth(java, writerJar, servers, store, logs, feedIn, feedOut, records, limitSeconds));
            } else if (!bootstrapOnly) {
                laterSteps(
                        out,
                        java,
                        writerJar,
                        servers,
                        store,
                        work,
                        logs,
                        feedIn,
                        feedOut,
                        records,
                        shortLookups,
                        limitSeconds);
            }
            String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
            keepLogs = bootstrapOnly || growthOnly; // a profiling run reads the writer's log
        } finally {
            feed.getOutputStream().close(); // the feed stops its broker when stdin closes
            if (!feed.waitFor(60, TimeUnit.SECONDS)) {
                WriterProcesses.stop(feed);
            }
            if (keepLogs) {
                Path kept = base.resolve(work.getFileName() + "-logs");
                Files.move(logs, kept);
                System.out.println("scale: logs kept in " + kept);
            }
            TempTrees.delete(work);
        }
    }

    /** Everything after the bootstrap, on its store: the operator commands, readers, lookups, the growth. */
    private static void laterSteps(
            Map<String, Object> out,
            String java,
            Path writerJar,
            String servers,
            Path store,
            Path work,
            Path logs,
            PrintStream feedIn,
            BufferedReader feedOut,
            long records,
            boolean shortLookups,
            int limitSeconds)
            throws Exception {
        out.put("verifyMillis", command(java, writerJar, logs, "verify", store.toString(), BootstrapFeed.TOPIC));
        Path snapshot = work.resolve("snapshot");
        out.put(
                "snapshotMillis",
                command(java, writerJar, logs, "snapshot", store.toString(), BootstrapFeed.TOPIC, snapshot.toString()));
        out.put(
                "seed",
                phase(() ->
                        seed(java, writerJar, servers, work.resolve("seeded"), snapshot, records, logs, limitSeconds)));
        TempTrees.delete(snapshot);
        TempTrees.delete(work.resolve("seeded"));

        out.put("readerStart", readerStarts(java, store, records, 3, logs));
        out.put("lookups", lookups(store, records, work, shortLookups));
        out.put("growth", growth(java, writerJar, servers, store, logs, feedIn, feedOut, records, limitSeconds));
    }

    /** A writer resumed on the bootstrapped store takes as many new keys again while readers read. */
    private static Map<String, Object> growth(
            String java,
            Path writerJar,
            String servers,
            Path store,
            Path logs,
            PrintStream feedIn,
            BufferedReader feedOut,
            long records,
            int limitSeconds)
            throws Exception {
        try (ScaleWriter writer = ScaleWriter.start(java, writerJar, servers, store, logs)) {
            long resumed = writer.awaitReady(limitSeconds);
            Map<String, Object> growth =
                    ScaleGrowth.run(java, writer, store, records, feedIn, feedOut, logs, limitSeconds);
            growth.put("resumeMillisFromProcessStart", resumed);
            growth.put("writer", writer.footprint());
            growth.put("loadAverageAtEnd", load());
            return growth;
        }
    }

    /**
     * The free space a run of {@code records} needs at its peak, generously: the Kafka log of 2 × records (the growth
     * doubles the topic) at 80 B a record uncompressed; the writer's first generation estimated as it does itself
     * ((key + value + 32 B) × 1.5 headroom = 138 B per record), which it makes only when that is at most a quarter of
     * the free space (so 4 ×; less, and it starts smaller and grows during the bootstrap); the grown generation
     * (capacity ~3.4 × records) beside the first during the growth; and 1.5 GB for the comparison stores.
     */
    static long diskNeeded(long records) {
        long kafka = 2 * 80 * records;
        long firstGeneration = 138 * records;
        long grown = (long) (3.4 * 92 * records);
        return kafka + Math.max(4 * firstGeneration, firstGeneration + grown) + 1_500_000_000L;
    }

    private interface Phase {
        Map<String, Object> run() throws Exception;
    }

    /** Runs a phase and adds the load average at its start and end to its row. */
    private static Map<String, Object> phase(Phase phase) throws Exception {
        String atStart = load();
        Map<String, Object> row = phase.run();
        row.put("loadAverageAtStart", atStart);
        row.put("loadAverageAtEnd", load());
        return row;
    }

    private static Map<String, Object> bootstrap(
            String java, Path writerJar, String servers, Path store, long records, Path logs, int limitSeconds)
            throws Exception {
        try (ScaleWriter writer = ScaleWriter.start(java, writerJar, servers, store, logs)) {
            long millis = writer.awaitReady(limitSeconds);
            JsonNode ns = writer.namespace();
            // /namespaces is a status snapshot, refreshed apart from /ready: give it a few seconds to show the count.
            for (int i = 0; i < 50 && ns.path("entries").asLong() != records; i++) {
                Thread.sleep(200);
                ns = writer.namespace();
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("millisFromProcessStart", millis);
            row.put("recordsPerSecond", records * 1000.0 / millis);
            row.put("entries", ns.path("entries").asLong());
            row.put("capacity", ns.path("capacity").asLong());
            row.put("growths", writer.metric("sharedlookup_writer_growths_total"));
            row.put("writer", writer.footprint());
            if (ns.path("entries").asLong() != records) {
                throw new IllegalStateException("the writer holds " + ns.path("entries") + " entries, expected "
                        + records + "; see " + writer.log());
            }
            System.out.println("scale: writer bootstrap " + row);
            return row;
        }
    }

    private static Map<String, Object> seed(
            String java,
            Path writerJar,
            String servers,
            Path store,
            Path snapshot,
            long records,
            Path logs,
            int limitSeconds)
            throws Exception {
        try (ScaleWriter writer =
                ScaleWriter.start(java, writerJar, servers, store, logs, "--seed", snapshot.toString())) {
            long millis = writer.awaitReady(limitSeconds);
            writer.footprint();
            if (!Files.readString(writer.log()).contains("seeded from snapshot")) {
                throw new IllegalStateException(
                        "the seeded writer did not start from the snapshot; see " + writer.log());
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("millisFromProcessStart", millis);
            System.out.println("scale: seeded writer " + row);
            return row;
        }
    }

    /** Runs one of the writer jar's operator commands to its end (exit 0 required); its milliseconds. */
    private static long command(String java, Path writerJar, Path logs, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-jar", writerJar.toString()));
        cmd.addAll(List.of(args));
        Path log = logs.resolve(args[0] + ".log");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        int exit = p.waitFor();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        if (exit != 0) {
            throw new IllegalStateException(
                    args[0] + " exited " + exit + ": " + Files.readString(log).strip());
        }
        System.out.printf("scale: %s took %d ms%n", args[0], millis);
        return millis;
    }

    /** Lookups on the writer-filled store and on comparison stores of the same records, one size after another. */
    private static List<Map<String, Object>> lookups(Path store, long records, Path work, boolean shortForm)
            throws Exception {
        ScaleLookups jmh = new ScaleLookups(shortForm);
        TreeSet<Long> sizes = new TreeSet<>();
        Arrays.stream(COMPARISON_SIZES).forEach(sizes::add);
        sizes.add(records);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long size : sizes) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("entries", size);
            row.put("store", size == records ? "the writer's, filled from the topic" : "written for comparison");
            row.put("settings", jmh.settings());
            Path dir = store;
            if (size != records) {
                dir = work.resolve("compare-" + size);
                long t0 = System.nanoTime();
                ScaleStoreWriter.writeInOwnJvm(dir, size);
                row.put("writtenInMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            }
            row.put("loadAverageAtStart", load());
            row.put("results", jmh.measure(dir, size));
            row.put("loadAverageAtEnd", load());
            if (size != records) {
                TempTrees.delete(dir);
            }
            System.out.println("scale: lookups " + row);
            rows.add(row);
        }
        return rows;
    }

    /** Reader JVMs one after another, each from process start to the first value in hand (ms). */
    private static Map<String, Object> readerStarts(String java, Path store, long records, int runs, Path logs)
            throws Exception {
        // An application embedding reader-lib: the benchmarks' classes (for ReaderStart), reader-lib, slf4j-api.
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("bench/target/classes")
                        || e.endsWith("reader-lib/target/classes")
                        || e.matches(".*/(shared-lookup-reader|slf4j-api)-[^/]*\\.jar"))
                .collect(Collectors.joining(File.pathSeparator));
        long index = records / 2;
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            Path err = logs.resolve("reader-start-" + i + ".err");
            long startedAt = System.currentTimeMillis();
            Process p = new ProcessBuilder(
                            java,
                            "-Xmx256m",
                            "-cp",
                            classPath,
                            ReaderStart.class.getName(),
                            store.toString(),
                            BootstrapFeed.TOPIC,
                            ScaleData.key(index))
                    .redirectError(err.toFile())
                    .start();
            try {
                String[] line = BootstrapHarness.expect(BootstrapHarness.reader(p), "FOUND ", p, err)
                        .split(" ", 3);
                if (!line[2].equals(ScaleData.value(index))) {
                    throw new IllegalStateException("reader found '" + line[2] + "' for " + ScaleData.key(index));
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
        row.put("classPath", "reader-lib, slf4j-api and the benchmarks' classes");
        System.out.println("scale: reader start " + row);
        return row;
    }

    /** The store's files: their bytes, per record, against the records' raw key and value bytes. */
    private static Map<String, Object> storeFiles(Path store, long records, long rawBytes) throws IOException {
        long total = 0;
        long largest = 0;
        try (Stream<Path> files = Files.walk(store)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                long size = Files.size(p);
                total += size;
                largest = Math.max(largest, size);
            }
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("totalBytes", total);
        row.put("generationFileBytes", largest);
        row.put("bytesPerEntry", (double) total / records);
        row.put("rawKeyAndValueBytesPerEntry", (double) rawBytes / records);
        System.out.println("scale: store files " + row);
        return row;
    }

    /** Cores, memory, the disk and the load: the limits every figure of the run is bound by. */
    private static Map<String, Object> machine(Path base, long free, long needed) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                m.put("memoryBytes", Long.parseLong(line.replaceAll("\\D", "")) * 1024);
            }
        }
        m.put("workDir", base.toString());
        m.put("freeDiskBytesAtStart", free);
        m.put("estimatedPeakDiskBytes", needed);
        m.put("loadAverageAtStart", load());
        return m;
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    @SuppressWarnings("unchecked")
    private static double number(Map<String, Object> out, String row, String field) {
        return ((Number) ((Map<String, Object>) out.get(row)).get(field)).doubleValue();
    }
}
