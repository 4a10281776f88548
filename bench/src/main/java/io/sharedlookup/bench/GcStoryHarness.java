package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.druid.data.input.InputRow;
import org.apache.druid.data.input.MapBasedInputRow;
import org.apache.druid.data.input.impl.DimensionsSpec;
import org.apache.druid.data.input.impl.StringDimensionSchema;
import org.apache.druid.java.util.common.DateTimes;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.aggregation.LongSumAggregatorFactory;
import org.apache.druid.segment.IndexBuilder;
import org.apache.druid.segment.incremental.IncrementalIndexSchema;
import org.apache.druid.segment.writeout.OffHeapMemorySegmentWriteOutMediumFactory;

/**
 * The GC story (issue #15, item 3; seed 004): a Druid-like JVM with a fixed heap that holds a large lookup on its heap
 * as Druid's map lookup does ({@code MapLookupExtractor} over a {@code HashMap}), against the same JVM reading the
 * shared store through {@code sharedLookup}, both serving the same groupBy on the looked-up name (Druid's real query
 * engine over a real memory-mapped segment, as in {@link DruidQueryBenchmark}) in a loop for a fixed time while
 * another thread allocates at a steady rate, as concurrent ingestion or other queries do.
 *
 * <p>The coordinator (this class's {@code main}) writes the store and the segment once, then starts one child JVM per
 * mode, one after the other, with identical flags: {@code -Xms} = {@code -Xmx} = the given heap, default G1,
 * {@code -XX:+ExitOnOutOfMemoryError} (as Druid's example {@code jvm.config} has it), {@code -Xlog:gc} to a file,
 * and the flags Druid's engine needs; no Chronicle flag (reader-lib needs none). Per child: query latency
 * p50/p99/max and count, GC pauses (count, total, max, from the GC log, within the measurement window), heap after
 * GC (from the log) and the live heap after a full GC at the end, and the outcome: a child that runs out of heap is
 * reported, not a harness failure.
 *
 * <p>Usage: {@code GcStoryHarness <entries> <rows> <ids> <heap, e.g. 2g> <warm-up s> <measure s>
 * <allocation MB/s> <result.json> [--together]}; children are this class with {@code --child=<mode>}, which runs
 * {@link GcStoryChild}.
 * {@code --together} runs both children at once, for the smoke run only: it saves a JVM start, and its figures mean
 * nothing (the two JVMs share the cores).
 */
public final class GcStoryHarness {
    private static final Pattern PAUSE = Pattern.compile(
            "\\[([0-9.]+)s\\].*?GC\\(\\d+\\) (Pause .*?) ([0-9.]+)([KMG])->([0-9.]+)([KMG])\\(([0-9.]+)([KMG])\\) "
                    + "([0-9.]+)ms");

    private GcStoryHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].startsWith("--child=")) {
            GcStoryChild.run(args[0].substring(8), Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int entries = Integer.parseInt(args[0]);
        int rows = Integer.parseInt(args[1]);
        int ids = Integer.parseInt(args[2]);
        String heap = args[3];
        int warmup = Integer.parseInt(args[4]);
        int measure = Integer.parseInt(args[5]);
        int allocRate = Integer.parseInt(args[6]);
        Path result = Path.of(args[7]);
        boolean together = args.length > 8 && args[8].equals("--together");
        Path work = Files.createTempDirectory("gc-story");
        try {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("entries", entries);
            out.put("rows", rows);
            out.put("ids", ids);
            out.put("heap", heap);
            out.put("warmupSeconds", warmup);
            out.put("measureSeconds", measure);
            out.put("allocationMBPerSecond", allocRate);
            out.put("allocationMediumLivedShare", GcStoryChild.MEDIUM_SHARE);
            out.put("allocationMediumLifetimeSeconds", GcStoryChild.MEDIUM_LIFETIME_SECONDS);
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("loadAverageAtStart", loadAverage());

            long t0 = System.nanoTime();
            Path store = Files.createDirectories(work.resolve("store"));
            BenchData.writeStore(store, entries);
            System.out.printf("store of %,d entries written in %.1f s%n", entries, (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            File segment = buildSegment(work.resolve("segment"), rows, ids, entries);
            System.out.printf(
                    "segment of %,d rows, %,d ids built in %.1f s: %s%n",
                    rows, ids, (System.nanoTime() - t0) / 1e9, segment);

            List<String> flags = childFlags(heap);
            out.put("childJvmFlags", flags);
            long limitSeconds = warmup + measure + 600L;
            Map<String, Object> map;
            Map<String, Object> shared;
            if (together) { // the smoke form: both at once, to save a JVM start; figures then mean nothing
                out.put("childrenRunTogether", true);
                var mapRun = java.util.concurrent.CompletableFuture.supplyAsync(() -> uncheckedRunChild(
                        "map", flags, work, store, segment, entries, ids, warmup, measure, allocRate, limitSeconds));
                shared = runChild(
                        "shared", flags, work, store, segment, entries, ids, warmup, measure, allocRate, limitSeconds);
                map = mapRun.join();
            } else {
                map = runChild(
                        "map", flags, work, store, segment, entries, ids, warmup, measure, allocRate, limitSeconds);
                out.put("loadAverageBetween", loadAverage());
                shared = runChild(
                        "shared", flags, work, store, segment, entries, ids, warmup, measure, allocRate, limitSeconds);
            }
            out.put("mapLookup", map);
            out.put("sharedLookup", shared);
            out.put("loadAverageAtEnd", loadAverage());
            if (map.containsKey("answerChecksum") && shared.containsKey("answerChecksum")) {
                out.put("sameAnswers", map.get("answerChecksum").equals(shared.get("answerChecksum")));
                if (!map.get("answerChecksum").equals(shared.get("answerChecksum"))) {
                    throw new IllegalStateException("the groupBy through sharedLookup differs from the map lookup's: "
                            + map.get("answerChecksum") + " vs " + shared.get("answerChecksum"));
                }
            }
            if (!"completed".equals(shared.get("outcome"))) {
                throw new IllegalStateException("the sharedLookup JVM did not complete: " + shared);
            }
            String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
        } finally {
            TempTrees.delete(work);
        }
    }

    /** The same flags for both children: a fixed heap, default G1, exit on OOM, GC log; Druid's engine's needs. */
    private static List<String> childFlags(String heap) {
        return List.of(
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:+UseG1GC",
                "-XX:+ExitOnOutOfMemoryError",
                "-Duser.timezone=UTC",
                "-Dfile.encoding=UTF-8",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED");
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * {@code rows} rows whose {@code user_id} takes {@code ids} distinct values spread evenly over the lookup's
     * {@code entries} keys, plus 1% whose id is not in the lookup; written as a memory-mappable segment directory.
     */
    private static File buildSegment(Path dir, int rows, int ids, int entries) {
        long day = DateTimes.of("2024-01-01").getMillis();
        int stride = Math.max(1, entries / ids);
        List<InputRow> list = new ArrayList<>(rows);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < rows; i++) {
            String id = i % 100 == 99 ? "missing-" + (i % 1000) : BenchData.key(random.nextInt(ids) * stride);
            list.add(new MapBasedInputRow(
                    day + i % 86_400_000L, List.of("user_id"), Map.of("user_id", id, "amount", (long) (i % 17))));
        }
        return IndexBuilder.create()
                .tmpDir(dir.toFile())
                .segmentWriteOutMediumFactory(OffHeapMemorySegmentWriteOutMediumFactory.instance())
                .schema(IncrementalIndexSchema.builder()
                        .withMinTimestamp(day)
                        .withDimensionsSpec(new DimensionsSpec(List.of(new StringDimensionSchema("user_id"))))
                        .withMetrics(
                                new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                        .withRollup(false)
                        .build())
                .rows(list)
                .buildMMappedIndexFile();
    }

    private static Map<String, Object> uncheckedRunChild(
            String mode,
            List<String> flags,
            Path work,
            Path store,
            File segment,
            int entries,
            int ids,
            int warmup,
            int measure,
            int allocRate,
            long limitSeconds) {
        try {
            return runChild(mode, flags, work, store, segment, entries, ids, warmup, measure, allocRate, limitSeconds);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Object> runChild(
            String mode,
            List<String> flags,
            Path work,
            Path store,
            File segment,
            int entries,
            int ids,
            int warmup,
            int measure,
            int allocRate,
            long limitSeconds)
            throws Exception {
        Path gcLog = work.resolve("gc-" + mode + ".log");
        Path stderr = work.resolve("child-" + mode + ".err");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.add("-Xlog:gc:file=" + gcLog + ":uptime");
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                GcStoryHarness.class.getName(),
                "--child=" + mode,
                store.toString(),
                segment.toString(),
                Integer.toString(entries),
                Integer.toString(ids),
                Integer.toString(warmup),
                Integer.toString(measure),
                Integer.toString(allocRate)));
        System.out.printf("== %s lookup JVM: %s%n", mode, String.join(" ", flags));
        String loadBefore = loadAverage();
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(stderr.toFile()).start();
        Map<String, Object> row = new LinkedHashMap<>();
        String phase = "starting";
        double windowStart = -1;
        double windowEnd = -1;
        String resultJson = null;
        Thread killer = new Thread(() -> {
            try {
                if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        killer.setDaemon(true);
        killer.start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println("   [" + mode + "] " + line);
                if (line.startsWith("PHASE ")) {
                    phase = line.substring(6).trim();
                } else if (line.startsWith("MEASURE_START ")) {
                    windowStart = Long.parseLong(line.substring(14).trim()) / 1000.0;
                } else if (line.startsWith("MEASURE_END ")) {
                    windowEnd = Long.parseLong(line.substring(12).trim()) / 1000.0;
                } else if (line.startsWith("RESULT ")) {
                    resultJson = line.substring(7);
                }
            }
        }
        int exit = p.waitFor();
        double seconds = (System.nanoTime() - start) / 1e9;
        String err = Files.exists(stderr) ? Files.readString(stderr) : "";
        boolean oom = err.contains("OutOfMemoryError");
        if (resultJson != null && exit == 0) {
            row.put("outcome", "completed");
        } else if (oom) {
            row.put("outcome", "OutOfMemoryError while " + phase);
        } else if (!p.isAlive() && seconds >= limitSeconds) {
            row.put("outcome", "killed after " + limitSeconds + " s while " + phase);
        } else {
            row.put("outcome", "exited with " + exit + " while " + phase);
        }
        row.put("childSeconds", Math.round(seconds * 10) / 10.0);
        row.put("loadAverageBefore", loadBefore);
        row.put("loadAverageAfter", loadAverage());
        if (resultJson != null) {
            @SuppressWarnings("unchecked")
            Map<String, Object> child = new ObjectMapper().readValue(resultJson, Map.class);
            row.putAll(child);
        }
        List<double[]> pauses = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        if (Files.exists(gcLog)) {
            for (String line : Files.readAllLines(gcLog)) {
                Matcher m = PAUSE.matcher(line);
                if (m.find()) {
                    pauses.add(new double[] {
                        Double.parseDouble(m.group(1)), Double.parseDouble(m.group(9)), mb(m.group(5), m.group(6))
                    });
                    kinds.add(m.group(2).trim());
                }
            }
        }
        double from = windowStart >= 0 ? windowStart : 0;
        double to = windowEnd >= 0 ? windowEnd : Double.MAX_VALUE;
        row.put(
                "gcWindow",
                windowStart >= 0
                        ? (windowEnd >= 0 ? "measurement" : "measurement start to exit")
                        : "whole run (the measurement never started)");
        row.put("gc", pauseStats(pauses, kinds, from, to));
        row.put("gcWholeRun", pauseStats(pauses, kinds, 0, Double.MAX_VALUE));
        if (!"completed".equals(row.get("outcome"))) {
            row.put("stderrTail", tail(err, 1500));
        }
        System.out.printf("== %s lookup JVM: %s in %.1f s%n", mode, row.get("outcome"), seconds);
        return row;
    }

    private static double mb(String value, String unit) {
        double v = Double.parseDouble(value);
        return switch (unit) {
            case "K" -> v / 1024;
            case "G" -> v * 1024;
            default -> v;
        };
    }

    private static Map<String, Object> pauseStats(List<double[]> pauses, List<String> kinds, double from, double to) {
        Map<String, Object> s = new LinkedHashMap<>();
        int count = 0;
        double total = 0;
        double max = 0;
        int full = 0;
        double lastAfter = -1;
        double maxAfter = 0;
        Map<String, Integer> byKind = new LinkedHashMap<>();
        for (int i = 0; i < pauses.size(); i++) {
            double[] p = pauses.get(i);
            if (p[0] < from || p[0] > to) {
                continue;
            }
            count++;
            total += p[1];
            max = Math.max(max, p[1]);
            String kind =
                    kinds.get(i).replaceAll(" \\(G1[^)]*\\)$", "").replaceAll(" \\((System.gc|Heap Dump)[^)]*\\)$", "");
            if (kind.startsWith("Pause Full")) {
                full++;
            }
            byKind.merge(kind, 1, Integer::sum);
            lastAfter = p[2];
            maxAfter = Math.max(maxAfter, p[2]);
        }
        s.put("pauses", count);
        s.put("fullPauses", full);
        s.put("pauseTotalMillis", Math.round(total * 10) / 10.0);
        s.put("pauseMaxMillis", Math.round(max * 10) / 10.0);
        s.put("heapAfterLastGcMB", lastAfter);
        s.put("heapAfterGcMaxMB", maxAfter);
        s.put("pausesByKind", byKind);
        return s;
    }

    private static String tail(String s, int chars) {
        return s.length() <= chars ? s : s.substring(s.length() - chars);
    }
}
