package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The scale part's growth: a writer that holds {@code entries} keys, published and caught up, takes as many new keys
 * again while {@value #READERS} reader JVMs ({@link ScaleReader}) read the old ones. The first generation was sized for
 * 1.5 × the topic, so the writer grows it once on the way (at 75 % full: a bigger generation filled in the background,
 * then published). Timed from the first new record sent to the writer holding {@code 2 × entries} in a generation
 * newer than the one it started with; the readers' worst lookup over the whole of it is reported.
 */
final class ScaleGrowth {
    static final int READERS = 2;
    private static final long POLL_MILLIS = 500;

    private ScaleGrowth() {}

    /**
     * Runs the growth. {@code feedIn}/{@code feedOut} are the feed's stdin and stdout ({@link ScaleFeed}'s
     * {@code PRODUCE} command); the writer is live on {@code store}.
     */
    static Map<String, Object> run(
            String java,
            ScaleWriter writer,
            Path store,
            long entries,
            PrintStream feedIn,
            BufferedReader feedOut,
            Path logs,
            int limitSeconds)
            throws Exception {
        JsonNode before = writer.namespace();
        long generation0 = before.path("generation").asLong();
        List<Process> readers = new ArrayList<>();
        List<BufferedReader> readerOut = new ArrayList<>();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("readers", READERS);
        out.put("readerPaceLookupsPerMillisecond", ScaleReader.PACE_LOOKUPS);
        out.put("generationBefore", generation0);
        out.put("capacityBefore", before.path("capacity").asLong());
        try {
            for (int i = 0; i < READERS; i++) {
                List<String> cmd = new ArrayList<>(List.of(
                        java,
                        "-Xmx512m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ScaleReader.class.getName(),
                        store.toString(),
                        Long.toString(entries),
                        Long.toString(2 * entries - 1)));
                Path err = logs.resolve("growth-reader-" + i + ".err");
                Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
                readers.add(p);
                readerOut.add(BootstrapHarness.reader(p));
                BootstrapHarness.expect(readerOut.get(i), "READING", p, err);
            }
            long start = System.nanoTime();
            feedIn.println("PRODUCE " + entries + " " + entries);
            feedIn.flush();
            String[] produced = BootstrapHarness.expect(feedOut, "PRODUCED ", null, logs.resolve("feed.err"))
                    .split(" ");
            out.put("produceMillis", Long.parseLong(produced[2]));
            long deadline = start + TimeUnit.SECONDS.toNanos(limitSeconds);
            JsonNode now = writer.namespace();
            while (!(now.path("generation").asLong() > generation0
                    && now.path("entries").asLong() >= 2 * entries)) {
                if (!writer.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the writer did not reach " + 2 * entries + " entries in a new "
                            + "generation within " + limitSeconds + " s (now " + now + "); see " + writer.log());
                }
                Thread.sleep(POLL_MILLIS);
                now = writer.namespace();
            }
            out.put("millisToDoubled", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            out.put("generationAfter", now.path("generation").asLong());
            out.put("capacityAfter", now.path("capacity").asLong());
            out.put("entriesAfter", now.path("entries").asLong());
            out.put("growths", writer.metric("sharedlookup_writer_growths_total"));
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = 0; i < readers.size(); i++) {
                Process p = readers.get(i);
                p.getOutputStream().close();
                String[] f = BootstrapHarness.expect(
                                readerOut.get(i), "READ ", p, logs.resolve("growth-reader-" + i + ".err"))
                        .split(" ");
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("lookups", Long.parseLong(f[1]));
                row.put("maxMicros", Long.parseLong(f[2]) / 1000.0);
                row.put("p99Micros", Long.parseLong(f[3]) / 1000.0);
                row.put("p999Micros", Long.parseLong(f[4]) / 1000.0);
                row.put("lookupsOver1ms", Long.parseLong(f[5]));
                row.put("misses", Long.parseLong(f[6]));
                row.put("sawGrownGeneration", Boolean.parseBoolean(f[7]));
                rows.add(row);
            }
            out.put("readerRows", rows);
            out.put(
                    "worstLookupMicros",
                    rows.stream()
                            .mapToDouble(r -> (Double) r.get("maxMicros"))
                            .max()
                            .orElse(0));
            System.out.println("scale: growth " + out);
            return out;
        } finally {
            for (Process p : readers) {
                WriterProcesses.stop(p);
            }
        }
    }
}
