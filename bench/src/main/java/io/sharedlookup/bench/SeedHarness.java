package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.testing.TempTrees;
import java.io.File;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A new host ready from a peer's snapshot against ready from the topic (issue "Many hosts", item 3), on one N-record
 * topic of a real local broker ({@link BootstrapFeed}) in the same run: the writer jar on an empty store until
 * {@code /ready} (the whole topic replayed); then {@code snapshot} of that store (timed); then the writer jar on another
 * empty store with {@code --seed} until {@code /ready} (copy, digest check, resume from the snapshot's offsets). Each
 * timed from process start.
 *
 * <p>Usage: {@code SeedHarness <writer.jar> <demo.jar> <records> <result.json>}.
 */
public final class SeedHarness {
    private SeedHarness() {}

    public static void main(String[] args) throws Exception {
        Path writerJar = Path.of(args[0]);
        Path demoJar = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        Path result = Path.of(args[3]);
        Path work = Files.createTempDirectory("seed-harness");
        Path logs = Files.createDirectories(work.resolve("logs"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String feedCp = demoJar + File.pathSeparator + BootstrapHarness.codeSource();
        List<Process> processes = new ArrayList<>();
        try {
            Process feed = new ProcessBuilder(
                            java, "-Xmx512m", "-cp", feedCp, BootstrapFeed.class.getName(), Long.toString(records))
                    .redirectError(logs.resolve("feed.err").toFile())
                    .start();
            processes.add(feed);
            String[] boot = BootstrapHarness.expect(
                            BootstrapHarness.reader(feed), "BOOTSTRAP ", feed, logs.resolve("feed.err"))
                    .split(" ");
            String servers = boot[1];
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            out.put("records", records);

            Path peer = work.resolve("peer-store");
            Map<String, Object> fromTopic =
                    BootstrapHarness.writer(java, writerJar, servers, peer, client, records, logs);
            fromTopic.remove("log");
            out.put("readyFromTopic", fromTopic);

            Path snapshot = work.resolve("snapshot");
            long t0 = System.nanoTime();
            Process snap = new ProcessBuilder(
                            java,
                            "-Xmx512m",
                            "-jar",
                            writerJar.toString(),
                            "snapshot",
                            peer.toString(),
                            BootstrapFeed.TOPIC,
                            snapshot.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(logs.resolve("snapshot.log").toFile())
                    .start();
            if (snap.waitFor() != 0) {
                throw new IllegalStateException("snapshot failed; see " + logs.resolve("snapshot.log"));
            }
            out.put("snapshotMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));

            Map<String, Object> fromSnapshot = BootstrapHarness.writer(
                    java,
                    writerJar,
                    servers,
                    work.resolve("new-store"),
                    client,
                    records,
                    logs,
                    "--seed",
                    snapshot.toString());
            boolean resumed = Files.readString(Path.of((String) fromSnapshot.remove("log")))
                    .contains("seeded from snapshot");
            if (!resumed) {
                throw new IllegalStateException("the seeded writer did not start from the snapshot; see " + logs);
            }
            out.put("readyFromSnapshot", fromSnapshot);
            out.put("snapshotToTopicRatio", millis(fromSnapshot) / millis(fromTopic));

            String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out);
            Files.createDirectories(result.toAbsolutePath().getParent());
            Files.writeString(result, json);
            System.out.println(json);
        } finally {
            for (Process p : processes) {
                p.getOutputStream().close(); // the feed stops its broker when stdin closes
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    WriterProcesses.stop(p);
                }
            }
            TempTrees.delete(work);
        }
    }

    private static double millis(Map<String, Object> row) {
        return ((Number) row.get("millisFromProcessStart")).doubleValue();
    }
}
