package io.sharedlookup.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the benchmark harness exactly as documented, {@code bench/run --quick} (on the classes Maven's package phase
 * just built), so that the harness cannot rot: every benchmark and harness must run and leave a positive result in
 * its JSON file, and the charts must render. No performance target is asserted: the machine may be shared, and the
 * targets are compared in docs/benchmarks.md, not here.
 */
class QuickRunIT {
    /**
     * The bound for the quick form was 3 minutes; at 2d2ab35 the run took just over it (writers now probe
     * Chronicle's layout at start, and its freshness part took longer on a loaded host: at load average 25-60 that
     * part alone takes about 2 minutes, at 9edbf99 as now; bench/results/HISTORY.md, freshness), so the harness gets 5
     * minutes. This guards against a hang, not a speed. The key-shape matrix (issue #41) added two stores written
     * through a broker and the writer, six lookup forks and two Druid forks: 8 minutes. At load average ~20 the
     * lookup and druid parts alone took 4 and 7 minutes; their time on a quiet machine is not measured yet. The druid
     * part now runs one JVM of paired rounds instead of seven forks: about 30 s at load average 5.
     */
    private static final Duration LIMIT = Duration.ofMinutes(8);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path root =
            Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private final Path results = root.resolve("bench/results");
    private final Path charts = root.resolve("bench/target/charts");

    @Test
    void quickRunProducesEveryResultAndChart() throws Exception {
        List<Path> outputs = List.of(
                results.resolve("lookup-quick.json"),
                results.resolve("lookup-matrix-quick.json"),
                results.resolve("reverse-quick.json"),
                results.resolve("druid-quick.json"),
                results.resolve("gc-story-quick.json"),
                results.resolve("memory-quick.json"),
                results.resolve("freshness-quick.json"),
                results.resolve("http-quick.json"),
                results.resolve("bootstrap-quick.json"),
                results.resolve("put-quick.json"),
                results.resolve("seed-quick.json"));
        for (Path p : outputs) {
            Files.deleteIfExists(p); // a stale file from an earlier run must not pass
        }
        deleteCharts();

        Path log = root.resolve("bench/target/quick-run.log");
        ProcessBuilder builder = new ProcessBuilder(root.resolve("bench/run").toString(), "--quick", "--no-build")
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        long start = System.nanoTime();
        Process run = builder.start();
        boolean finished = run.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        if (!finished) {
            run.descendants().forEach(ProcessHandle::destroyForcibly);
            run.destroyForcibly().waitFor();
        }
        System.out.printf(
                "bench/run --quick took %d s (limit %d s); log: %s%n", took.toSeconds(), LIMIT.toSeconds(), log);
        assertThat(finished)
                .as("bench/run --quick finished within %s; see %s", LIMIT, log)
                .isTrue();
        assertThat(run.exitValue())
                .as("bench/run --quick exit status; see %s", log)
                .isZero();

        // 1. Lookups: every peer, a positive time and an allocation figure from the gc profiler.
        List<String> expected = new ArrayList<>(List.of(
                "concurrentHashMapGet",
                "druidMapLookupExtractorApply",
                "lmdbGetInto",
                "sharedLookupGet",
                "sharedLookupGetAllIntoBatchOf8",
                "sharedLookupGetInto",
                "sharedLookupGetIntoValueBuffer"));
        if (RedisBenchServer.binary() != null) {
            expected.add("redisGet");
        } else {
            assertThat(Files.readString(log)).contains("redis-server is not installed: skipping");
        }
        Map<String, JsonNode> lookups = byBenchmark(results.resolve("lookup-quick.json"));
        assertThat(lookups.keySet()).containsExactlyInAnyOrderElementsOf(expected);
        lookups.forEach((name, row) -> {
            assertThat(score(row)).as(name).isPositive().isFinite();
            assertThat(row.path("secondaryMetrics").has("gc.alloc.rate.norm"))
                    .as(name + " B/op")
                    .isTrue();
        });
        double chm = score(lookups.get("concurrentHashMapGet"));
        lookups.forEach((name, row) -> System.out.printf(
                "%-30s %10.1f ns/op  %6.2f x ConcurrentHashMap%n", name, score(row), score(row) / chm));

        // 1b. The key-shape matrix's corner: reader-lib beside the map for each shape, from stores the writer filled
        // from a broker; the table of ratios printed.
        JsonNode matrix =
                JSON.readTree(results.resolve("lookup-matrix-quick.json").toFile());
        Map<String, JsonNode> cells = new TreeMap<>();
        matrix.forEach(row -> cells.put(
                row.path("params").path("shape").asText() + " "
                        + row.path("benchmark").asText().replaceFirst(".*\\.", ""),
                row));
        List<String> expectedCells = new ArrayList<>();
        for (String shape : List.of("numeric7", "uuid")) {
            for (String benchmark : List.of(
                    "concurrentHashMapGet", "sharedLookupGetIntoValueBuffer", "sharedLookupGetAllIntoBatchOf8")) {
                expectedCells.add(shape + " " + benchmark);
            }
        }
        assertThat(cells.keySet()).containsExactlyInAnyOrderElementsOf(expectedCells);
        cells.forEach(
                (name, row) -> assertThat(score(row)).as(name).isPositive().isFinite());
        assertThat(Files.readString(log)).contains("| 100k | uuid | 40 B |");

        // 7 (partial). Reverse lookups: scan and reverse index.
        JsonNode reverse = JSON.readTree(results.resolve("reverse-quick.json").toFile());
        assertThat(reverse).hasSize(2);
        reverse.forEach(row -> assertThat(score(row)).isPositive().isFinite());

        // 7. Druid's query engine: groupBy, topN and a filter on a looked-up name, sharedLookup beside the map lookup,
        // on UUID ids.
        Map<String, JsonNode> druid = byBenchmark(results.resolve("druid-quick.json"));
        assertThat(druid.keySet())
                .containsExactlyInAnyOrder(
                        "groupByMapLookup",
                        "groupBySharedLookup",
                        "topNMapLookup",
                        "topNSharedLookup",
                        "filterMapLookup",
                        "filterSharedLookupReverseIndex",
                        "filterSharedLookupScan");
        druid.forEach(
                (name, row) -> assertThat(row.path("params").path("keyShape").asText())
                        .as(name)
                        .isEqualTo("uuid"));
        druid.forEach(
                (name, row) -> assertThat(score(row)).as(name).isPositive().isFinite());
        // Paired rounds in one JVM (DruidQueryPairs): each shared row carries its ratio to the map with an interval.
        druid.forEach(
                (name, row) -> assertThat(row.path("harness").asText()).as(name).isEqualTo("DruidQueryPairs"));
        for (String name : List.of(
                "groupBySharedLookup",
                "topNSharedLookup",
                "filterSharedLookupReverseIndex",
                "filterSharedLookupScan")) {
            JsonNode row = druid.get(name);
            assertThat(row.path("ratio").asDouble(Double.NaN))
                    .as(name + " ratio")
                    .isPositive()
                    .isBetween(
                            row.path("ratioLow").asDouble(),
                            row.path("ratioHigh").asDouble());
        }
        assertThat(druid.get("filterSharedLookupReverseIndex").path("lead").asDouble(Double.NaN))
                .as("the reverse index's lead over the map")
                .isPositive()
                .isFinite();

        // 9. The GC story: both JVMs (map lookup on the heap, sharedLookup) served the groupBy with the same answer,
        // latencies and the GC log's pauses recorded. The small quick sizes leave the map JVM room, so both complete.
        JsonNode gcStory = JSON.readTree(results.resolve("gc-story-quick.json").toFile());
        assertThat(gcStory.path("sameAnswers").asBoolean())
                .as("same groupBy answer in both JVMs")
                .isTrue();
        for (String mode : List.of("mapLookup", "sharedLookup")) {
            JsonNode row = gcStory.path(mode);
            assertThat(row.path("outcome").asText()).as(mode).isEqualTo("completed");
            assertThat(row.path("queries").asLong()).as(mode).isPositive();
            assertThat(row.path("p50Millis").asDouble()).as(mode).isPositive();
            assertThat(row.path("maxMillis").asDouble())
                    .as(mode)
                    .isGreaterThanOrEqualTo(row.path("p99Millis").asDouble());
            assertThat(row.path("allocatorMBPerSecond").asDouble()).as(mode).isPositive();
            assertThat(row.path("gcWholeRun").path("pauses").asInt())
                    .as(mode + " pauses in the GC log")
                    .isPositive();
            assertThat(row.path("liveHeapAfterFinalFullGcMB").asLong()).as(mode).isPositive();
        }

        // 2 and 3. Memory: every JVM of every role measured.
        JsonNode memory = JSON.readTree(results.resolve("memory-quick.json").toFile());
        assertThat(memory.path("storeFileBytes").asLong()).isPositive();
        for (String role : List.of("idle", "sharedStoreReaders", "heapCopies")) {
            assertThat(memory.path(role)).as(role).isNotEmpty();
            memory.path(role).forEach(jvm -> {
                assertThat(jvm.path("heapUsedBytes").asLong()).as(role).isPositive();
                assertThat(jvm.path("pssBytes").asLong()).as(role).isPositive();
            });
        }

        // 5. Freshness: both rates measured through the writer, something observed at each.
        JsonNode freshness =
                JSON.readTree(results.resolve("freshness-quick.json").toFile());
        assertThat(freshness.path("rates")).hasSize(2);
        freshness.path("rates").forEach(rate -> {
            assertThat(rate.path("observed").asLong()).as(rate.toString()).isPositive();
            assertThat(rate.path("p99Micros").asDouble()).as(rate.toString()).isPositive();
        });

        // 8. HTTP lookups: percentiles at the fixed rate, a maximum rate.
        JsonNode http = JSON.readTree(results.resolve("http-quick.json").toFile());
        assertThat(http.path("fixedRate").path("requests").asLong()).isPositive();
        assertThat(http.path("fixedRate").path("p99Micros").asDouble()).isPositive();
        assertThat(http.path("maxRate").path("requestsPerSecond").asDouble()).isPositive();

        // 4. Writer bootstrap and the bare consumer it is compared with: both read every record.
        JsonNode bootstrap =
                JSON.readTree(results.resolve("bootstrap-quick.json").toFile());
        assertThat(bootstrap.path("records").asLong()).isPositive();
        // 6. Restart: the writer's resume, the HashMap re-read, reader JVMs to their first lookup.
        for (String peer : List.of("bareConsumer", "writerBootstrap", "writerResume", "hashMapConsumer")) {
            assertThat(bootstrap.path(peer).path("recordsPerSecond").asDouble())
                    .as(peer)
                    .isPositive();
        }
        assertThat(bootstrap.path("writerResume").path("resumed").asBoolean())
                .as("resumed from stored offsets")
                .isTrue();
        for (String reader : List.of("readerStart", "readerStartBenchClassPath", "readerStartWithoutNativeBindings")) {
            assertThat(bootstrap.path(reader).path("medianMillis").asLong())
                    .as(reader)
                    .isPositive();
        }

        // 4b. The writer's put floor beside a bare Chronicle Map and a heap map, and split over two threads.
        Map<String, JsonNode> puts = byBenchmark(results.resolve("put-quick.json"));
        assertThat(puts.keySet())
                .containsExactlyInAnyOrder(
                        "generationFilePut",
                        "generationFilePutReverseIndex",
                        "generationFilePutTwoThreads",
                        "chronicleMapPut",
                        "concurrentHashMapPut");
        puts.forEach((name, row) -> assertThat(score(row)).as(name).isPositive().isFinite());

        // 6b. A new host: ready from a snapshot and from the topic, both timed.
        JsonNode seed = JSON.readTree(results.resolve("seed-quick.json").toFile());
        assertThat(seed.path("snapshotToTopicRatio").asDouble()).isPositive().isFinite();

        // Charts rendered from these results.
        for (String chart : List.of(
                "bench-lookup-quick-avgt.png",
                "bench-lookup-quick-alloc.png",
                "bench-lookup-matrix-quick-100k-sharedLookupGetIntoValueBuffer.png",
                "bench-reverse-quick-avgt.png",
                "bench-druid-quick-avgt.png",
                "bench-gc-story-quick.png",
                "bench-memory-quick.png",
                "bench-freshness-quick.png",
                "bench-http-quick.png",
                "bench-bootstrap-quick.png",
                "bench-put-quick-ss.png")) {
            Path png = charts.resolve(chart);
            assertThat(png).as(chart).exists();
            byte[] head = new byte[4];
            System.arraycopy(Files.readAllBytes(png), 0, head, 0, 4);
            assertThat(head).as(chart + " is a PNG").containsExactly(0x89, 'P', 'N', 'G');
        }
    }

    private static double score(JsonNode row) {
        return row.path("primaryMetric").path("score").asDouble(Double.NaN);
    }

    private static Map<String, JsonNode> byBenchmark(Path file) throws IOException {
        Map<String, JsonNode> rows = new TreeMap<>();
        for (JsonNode row : JSON.readTree(file.toFile())) {
            String name = row.path("benchmark").asText();
            assertThat(rows.put(name.substring(name.lastIndexOf('.') + 1), row))
                    .as("one row per benchmark")
                    .isNull();
        }
        return rows;
    }

    private void deleteCharts() throws IOException {
        if (Files.isDirectory(charts)) {
            try (var files = Files.list(charts)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
