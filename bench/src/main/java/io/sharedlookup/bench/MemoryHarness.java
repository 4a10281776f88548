package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Multi-JVM memory comparison on the same data (benchmarks 2 and 3): N reader JVMs holding one shared store open vs N
 * JVMs each holding a {@code ConcurrentHashMap<String,String>} copy (what Druid's Kafka lookup keeps per JVM), plus an
 * idle JVM as the baseline. Reports per JVM the heap used after a full GC and PSS/RSS from
 * {@code /proc/<pid>/smaps_rollup} (PSS splits shared pages between the processes mapping them).
 *
 * <p>Usage: {@code MemoryHarness <entries> <jvms> <result.json>}; children are this class with a role argument.
 */
public final class MemoryHarness {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].startsWith("--child=")) {
            child(args[0].substring(8), args);
            return;
        }
        int entries = Integer.parseInt(args[0]);
        int jvms = Integer.parseInt(args[1]);
        Path result = Path.of(args[2]);
        Path dir = Files.createTempDirectory("memory-bench");
        try {
            long t0 = System.nanoTime();
            BenchData.writeStore(dir, entries);
            System.out.printf("store of %,d entries written in %.1f s%n", entries, (System.nanoTime() - t0) / 1e9);
            long storeBytes;
            try (var files = Files.walk(dir)) {
                storeBytes = files.filter(p -> p.toString().endsWith(".cmap"))
                        .mapToLong(MemoryHarness::size)
                        .sum();
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("entries", entries);
            out.put("jvms", jvms);
            out.put("storeFileBytes", storeBytes);
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("idle", measure("idle", 1, entries, dir));
            out.put("sharedStoreReaders", measure("shared", jvms, entries, dir));
            out.put("heapCopies", measure("heap", jvms, entries, dir));
            String json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .writerWithDefaultPrettyPrinter()
                    .writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
        } finally {
            TempTrees.delete(dir);
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts {@code count} children of a role at once, waits until all hold their data, measures, stops them. */
    private static List<Map<String, Object>> measure(String role, int count, int entries, Path dir) throws Exception {
        List<Process> children = new ArrayList<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                children.add(start(role, entries, dir));
            }
            List<Long> heaps = new ArrayList<>();
            for (Process p : children) {
                BufferedReader r =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = r.readLine()) != null && !line.startsWith("HEAP_USED ")) {
                    // skip
                }
                if (line == null) {
                    throw new IllegalStateException(role + " child exited early with " + p.waitFor());
                }
                heaps.add(Long.parseLong(line.substring(10).trim()));
            }
            for (int i = 0; i < children.size(); i++) {
                Map<String, Long> smaps = smapsRollup(children.get(i).pid());
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("heapUsedBytes", heaps.get(i));
                row.put("pssBytes", smaps.get("Pss"));
                row.put("rssBytes", smaps.get("Rss"));
                rows.add(row);
            }
        } finally {
            for (Process p : children) {
                p.destroyForcibly().waitFor();
            }
        }
        return rows;
    }

    /**
     * The children's class path: the benchmarks' classes, reader-lib and slf4j-api, what an application embedding
     * reader-lib has. The benchmarks' whole class path carries Druid's log4j, whose buffers alone took ~10 MiB of every
     * child's heap (12.9 MiB for a reader that needs 0.2 MiB over an idle JVM), in both roles alike.
     */
    private static String childClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("bench/target/classes")
                        || e.matches(".*/(shared-lookup-reader|slf4j-api|" + "shared-lookup-testing)-[^/]*\\.jar")
                        || e.endsWith("reader-lib/target/classes"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static Process start(String role, int entries, Path dir) throws IOException {
        List<String> cmd = BenchData.javaCommandLikeThisOne("-Xmx3g");
        cmd.add("-XX:+UseG1GC");
        cmd.addAll(List.of(
                "-cp",
                childClassPath(),
                MemoryHarness.class.getName(),
                "--child=" + role,
                Integer.toString(entries),
                dir.toString()));
        return new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** A child: loads its data its way, touches every entry, prints the heap used after GC, then waits to be killed. */
    private static void child(String role, String[] args) throws Exception {
        int entries = Integer.parseInt(args[1]);
        Path dir = Path.of(args[2]);
        Object keepAlive = null;
        if (role.equals("shared")) {
            SharedLookupStore store = SharedLookupStore.open(dir);
            Lookup lookup = store.lookup(BenchData.NAMESPACE);
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < entries; i++) {
                if (!lookup.getInto(BenchData.key(i), out)) {
                    throw new IllegalStateException("missing " + BenchData.key(i));
                }
            }
            keepAlive = store;
        } else if (role.equals("heap")) {
            Map<String, String> map = new ConcurrentHashMap<>();
            for (int i = 0; i < entries; i++) { // what a consumer re-reading the topic builds
                map.put(BenchData.key(i), BenchData.value(i));
            }
            keepAlive = map;
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.println("HEAP_USED " + used);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
        System.out.println(keepAlive);
    }

    private static Map<String, Long> smapsRollup(long pid) throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 3 && parts[2].equals("kB")) {
                out.put(parts[0].replace(":", ""), Long.parseLong(parts[1]) * 1024);
            }
        }
        return out;
    }
}
