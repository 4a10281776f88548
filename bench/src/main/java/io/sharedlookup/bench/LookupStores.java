package io.sharedlookup.bench;

import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TempTrees;
import java.io.BufferedReader;
import java.io.File;
import java.net.http.HttpClient;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stores {@link LookupBenchmark} reads, made as in production: a real broker ({@link LookupStoreFeed}, in a JVM of
 * its own on the demo jar) holds the entries in a compacted topic of {@value #PARTITIONS} partitions, and the writer as
 * deployed ({@code java -jar shared-lookup-writer.jar}) consumes it into a store until {@code /ready}, then stops
 * cleanly. Writing 10M entries this way takes minutes, so a store is kept, keyed by shape, value size and entries,
 * under {@code bench.storeCache} (default {@code bench/target/lookup-stores}) and reused by every later fork, parameter
 * set and run until {@code mvn clean}; a store is moved into place only when complete, so an interrupted build leaves
 * nothing to reuse.
 *
 * <p>Paths (relative to the repository root, where {@code bench/run} runs): system properties
 * {@code bench.writerJar} (default {@code writer/target/shared-lookup-writer.jar}) and {@code bench.demoJar}
 * (default {@code demo/target/shared-lookup-demo.jar}), both built by {@code bench/run}'s Maven step.
 */
final class LookupStores {
    /** Several partitions, as production topics have: the writer merges them into one namespace. */
    static final int PARTITIONS = 4;

    private static final Logger LOG = LoggerFactory.getLogger(LookupStores.class);

    private LookupStores() {}

    /** The cached store directory for this data, written first if there is none. */
    static Path store(KeyShapes shape, int valueBytes, int entries) throws Exception {
        Path cache = Path.of(System.getProperty("bench.storeCache", "bench/target/lookup-stores"))
                .toAbsolutePath();
        Path dir = cache.resolve(shape.data().param + "-" + valueBytes + "B-" + entries);
        if (Files.isDirectory(dir)) {
            LOG.info("reusing the store {}", dir);
            return dir;
        }
        Files.createDirectories(cache);
        Path building = Files.createTempDirectory(cache, "building-");
        long start = System.nanoTime();
        try {
            write(shape.data(), valueBytes, entries, building);
            try {
                Files.move(building, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(building, dir);
            }
        } finally {
            if (Files.exists(building)) {
                TempTrees.delete(building);
            }
        }
        LOG.info(
                "wrote {} entries ({}, {} B values) through a {}-partition topic into {} in {} s",
                entries,
                shape.data().param,
                valueBytes,
                PARTITIONS,
                dir,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        return dir;
    }

    private static void write(KeyShapes shape, int valueBytes, int entries, Path store) throws Exception {
        Path writerJar = jar("bench.writerJar", "writer/target/shared-lookup-writer.jar");
        Path demoJar = jar("bench.demoJar", "demo/target/shared-lookup-demo.jar");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path logs = Files.createTempDirectory("lookup-store-logs");
        Process feed = new ProcessBuilder(
                        java,
                        "-Xmx1g",
                        "-cp",
                        demoJar + File.pathSeparator + BootstrapHarness.codeSource(),
                        LookupStoreFeed.class.getName(),
                        shape.param,
                        Integer.toString(valueBytes),
                        Integer.toString(entries),
                        Integer.toString(PARTITIONS))
                .redirectError(logs.resolve("feed.err").toFile())
                .start();
        try {
            BufferedReader out = BootstrapHarness.reader(feed);
            String[] fed = BootstrapHarness.expect(out, "FED ", feed, logs.resolve("feed.err"))
                    .split(" ");
            LOG.info("{} records produced in {} ms", entries, fed[2]);
            int port = Ports.freePort();
            Path log = logs.resolve("writer.log");
            Process writer = new ProcessBuilder(List.of(
                            java,
                            "-Xmx1g",
                            "-Dchronicle.analytics.disable=true",
                            "-jar",
                            writerJar.toString(),
                            "--bootstrap-servers",
                            fed[1],
                            "--topic",
                            BenchData.NAMESPACE,
                            "--store-dir",
                            store.toString(),
                            "--http-port",
                            Integer.toString(port)))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                WriterProcesses.awaitReady(client, "http://127.0.0.1:" + port, writer, log, 3600);
            } finally {
                WriterProcesses.stop(writer);
            }
        } finally {
            feed.getOutputStream().close(); // the feed stops its broker when stdin closes
            if (!feed.waitFor(30, TimeUnit.SECONDS)) {
                WriterProcesses.stop(feed);
            }
        }
        TempTrees.delete(logs); // kept only when something failed
    }

    private static Path jar(String property, String fallback) {
        Path jar = Path.of(System.getProperty(property, fallback)).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: build it (bench/run does) or set -D" + property + "=<path to the jar>");
        }
        return jar;
    }
}
